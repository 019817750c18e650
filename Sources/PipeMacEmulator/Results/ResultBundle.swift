import Foundation
import PipeBasics

/// Writes and reads the `.xcresult` folder: `Info.plist` in Xcode 16's shape (format 3.53, "fileBacked2" store)
/// and `Data/data.<id>` + `Data/refs.<id>`, where the root object is the emulator's `ResultBundleRecord` as JSON.
///
/// Object ids look like Xcode's (`0~` + URL-safe base64 of 64 digest bytes); they are made from SHA-256 rather than
/// Xcode's SHA-512, which only the emulated `xcresulttool` ever reads.
enum ResultBundle {
    /// Creates the bundle folder (and missing parents) at the start of a run, as xcodebuild does.
    static func create(at path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes the data and then `Info.plist`: a bundle without `Info.plist` is one whose run never finished.
    static func finish(at path: String, record: ResultBundleRecord, created: Date) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(record)
        let id = objectID(for: data)
        let folder = URL(fileURLWithPath: path).appendingPathComponent("Data")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.write(to: folder.appendingPathComponent("data.\(id)"))
        // A refs file of one byte: the object references nothing else.
        try Data([0]).write(to: folder.appendingPathComponent("refs.\(id)"))
        try infoPlist(rootID: id, created: created).write(
            to: URL(fileURLWithPath: path).appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
    }

    /// The folder inside a bundle that holds attached files.
    static let attachmentsFolder = "Attachments"

    /// Copies each attachment into the bundle (under a new name that keeps its extension, as Xcode's exports do)
    /// and returns what the record keeps of them; a file that cannot be read is left out.
    static func storeAttachments(_ sources: [TestEvidence.Source], in path: String) -> [TestEvidence.Attachment] {
        let folder = URL(fileURLWithPath: path).appendingPathComponent(attachmentsFolder)
        var stored: [TestEvidence.Attachment] = []
        var countByTest: [TestIdentity: Int] = [:]
        for source in sources {
            guard let data = try? Data(contentsOf: source.file) else { continue }
            let fileExtension = source.file.pathExtension
            let fileName = UUID().uuidString + (fileExtension.isEmpty ? "" : "." + fileExtension)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try data.write(to: folder.appendingPathComponent(fileName))
            } catch {
                continue
            }
            let index = countByTest[source.test, default: 0]
            countByTest[source.test] = index + 1
            stored.append(
                TestEvidence.Attachment(
                    test: source.test, name: source.name, fileName: fileName,
                    associatedWithFailure: source.associatedWithFailure, timestamp: Date().timeIntervalSince1970,
                    index: index))
        }
        return stored
    }

    /// Reads the record back; the error says what is missing.
    static func read(at path: String) throws -> ResultBundleRecord {
        let url = URL(fileURLWithPath: path)
        let info = url.appendingPathComponent("Info.plist")
        guard let plistData = try? Data(contentsOf: info) else {
            throw ResultBundleError.notABundle(
                "Info.plist at \(info.path) does not exist, the result bundle might be corrupted or the provided path "
                    + "is not a result bundle")
        }
        guard
            let plist = try? PropertyListSerialization.propertyList(from: plistData, format: nil) as? [String: Any],
            let root = plist["rootId"] as? [String: Any], let id = root["hash"] as? String
        else {
            throw ResultBundleError.notABundle(
                "Info.plist at \(info.path) has no rootId; the result bundle is corrupted")
        }
        let dataURL = url.appendingPathComponent("Data/data.\(id)")
        guard let data = try? Data(contentsOf: dataURL) else {
            throw ResultBundleError.notABundle("the root object \(id) is missing from \(url.path)/Data")
        }
        do {
            return try JSONDecoder().decode(ResultBundleRecord.self, from: data)
        } catch {
            throw ResultBundleError.notABundle(
                "the root object in \(url.path) was not written by pipe-mac-emulator (\(error))")
        }
    }

    static func objectID(for data: Data) -> String {
        var digest = Data(hexBytes: SHA256Digest.hex(of: data))
        digest.append(Data(hexBytes: SHA256Digest.hex(of: digest + data)))
        let base64 = digest.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "0~" + base64
    }

    static func infoPlist(rootID: String, created: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>dateCreated</key>
            \t<date>\(formatter.string(from: created))</date>
            \t<key>externalLocations</key>
            \t<array/>
            \t<key>rootId</key>
            \t<dict>
            \t\t<key>hash</key>
            \t\t<string>\(rootID)</string>
            \t</dict>
            \t<key>storage</key>
            \t<dict>
            \t\t<key>backend</key>
            \t\t<string>fileBacked2</string>
            \t\t<key>compression</key>
            \t\t<string>standard</string>
            \t</dict>
            \t<key>version</key>
            \t<dict>
            \t\t<key>major</key>
            \t\t<integer>3</integer>
            \t\t<key>minor</key>
            \t\t<integer>53</integer>
            \t</dict>
            </dict>
            </plist>

            """
    }
}

/// The path given to `xcresulttool` is not a (finished) result bundle.
enum ResultBundleError: Error, Equatable {
    case notABundle(String)
}

extension Data {
    /// Bytes from a string of hex digit pairs.
    fileprivate init(hexBytes hex: String) {
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}

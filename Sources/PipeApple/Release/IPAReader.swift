import CArchive
import Foundation
import PipeBasics

/// An `.ipa` as `pipe verify --ipa` and a release layer see it: its SHA-256 and size, and the app's Info.plist.
public struct IPAContents: Equatable, Sendable {
    /// Lowercase hex.
    public var sha256: String
    public var size: Int64
    /// `Payload/<App>.app`.
    public var appPath: String
    public var app: AppBundleInfo
}

/// Reads an `.ipa` (a zip of `Payload/<App>.app`) in this process through libarchive, without extracting it. The
/// file is hostile input: at most `maximumEntries` entries, names checked (no absolute paths, no `..`, no NUL or
/// backslash), exactly one app, exactly one Info.plist in it, read to at most `maximumInfoPlistBytes`.
public struct IPAReader: Sendable {
    public var maximumFileBytes: Int64 = 8 << 30
    public var maximumEntries = 200_000
    public var maximumInfoPlistBytes = 1 << 20
    public var maximumNameBytes = 1_024

    public init() {}

    public func read(_ url: URL) throws(IPAError) -> IPAContents {
        let path = url.path
        let size: Int64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else {
                throw IPAError(path, "it is not a regular file")
            }
            size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch let error as IPAError {
            throw error
        } catch {
            throw IPAError(path, "cannot be read (\(error.localizedDescription))")
        }
        guard size <= maximumFileBytes else {
            throw IPAError(path, "it is \(size) bytes, over the \(maximumFileBytes) an .ipa may have")
        }
        let (appPath, plist) = try infoPlist(path)
        let app: AppBundleInfo
        do {
            app = try AppBundleInfo.read(infoPlist: plist, source: "\(path): \(appPath)/Info.plist")
        } catch {
            throw IPAError(path, "\(error)", prefixed: false)
        }
        let sha256: String
        do {
            sha256 = try SHA256Digest.hex(ofFile: url)
        } catch {
            throw IPAError(path, "cannot be read (\(error.localizedDescription))")
        }
        return IPAContents(sha256: sha256, size: size, appPath: appPath, app: app)
    }

    /// The one `Payload/<App>.app/Info.plist` and its bytes.
    private func infoPlist(_ path: String) throws(IPAError) -> (appPath: String, bytes: [UInt8]) {
        guard let archive = archive_read_new() else { throw IPAError(path, "libarchive could not start") }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard archive_read_open_filename(archive, path, 64 * 1024) == ARCHIVE_OK else {
            throw IPAError(path, "it is not a zip archive (\(Self.message(of: archive)))")
        }
        var apps = Set<String>()
        var found: (appPath: String, bytes: [UInt8])?
        var entries = 0
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { break }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw IPAError(path, "it is not a readable zip archive (\(Self.message(of: archive)))")
            }
            entries += 1
            guard entries <= maximumEntries else {
                throw IPAError(path, "it holds more than \(maximumEntries) entries")
            }
            let name = try checkedName(entry, path)
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0] == "Payload", parts[1].hasSuffix(".app"), parts[1].count > 4 else {
                continue
            }
            apps.insert(String(parts[1]))
            guard apps.count == 1 else {
                throw IPAError(
                    path, "its Payload holds \(apps.count) apps (\(apps.sorted().joined(separator: ", "))), not one")
            }
            guard parts.count == 3, parts[2] == "Info.plist" else { continue }
            guard found == nil else { throw IPAError(path, "it holds \(name) twice") }
            let type = UInt32(archive_entry_filetype(entry)) & pipe_archive_type_mask
            guard type == pipe_archive_type_file else {
                throw IPAError(path, "\(name) is not a regular file (a link, or a folder)")
            }
            found = ("Payload/\(parts[1])", try contents(of: archive, entry, name: name, path))
        }
        guard let found else {
            let expected = apps.first.map { "Payload/\($0)/Info.plist" } ?? "Payload/<App>.app/Info.plist"
            throw IPAError(path, "it holds no \(expected); is it an exported .ipa?")
        }
        return found
    }

    private func checkedName(_ entry: OpaquePointer, _ path: String) throws(IPAError) -> String {
        guard let raw = archive_entry_pathname(entry) else { throw IPAError(path, "it holds an entry without a name") }
        let bytes = Array(UnsafeBufferPointer(start: raw, count: strlen(raw))).map { UInt8(bitPattern: $0) }
        let shown = DisplayEscaping.escaped(bytes: Array(bytes.prefix(200)))
        guard !bytes.isEmpty, bytes.count <= maximumNameBytes else {
            throw IPAError(path, "it holds an entry whose name is empty or longer than \(maximumNameBytes) bytes")
        }
        guard let name = String(bytes: bytes, encoding: .utf8), !name.contains("\\"), !name.hasPrefix("/") else {
            throw IPAError(path, "it holds an entry with an absolute, backslashed or non-UTF-8 name: `\(shown)`")
        }
        guard !name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
            throw IPAError(path, "it holds an entry whose name climbs out (`.` or `..`): `\(shown)`")
        }
        return name.hasSuffix("/") ? String(name.dropLast()) : name
    }

    /// The entry's data, refused past the limit whatever its header claims.
    private func contents(of archive: OpaquePointer, _ entry: OpaquePointer, name: String, _ path: String)
        throws(IPAError) -> [UInt8]
    {
        if archive_entry_size_is_set(entry) != 0, archive_entry_size(entry) > Int64(maximumInfoPlistBytes) {
            throw IPAError(path, "\(name) is \(archive_entry_size(entry)) bytes, over \(maximumInfoPlistBytes)")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            guard count > 0 else {
                throw IPAError(path, "\(name) cannot be read (\(Self.message(of: archive)))")
            }
            guard bytes.count + count <= maximumInfoPlistBytes else {
                throw IPAError(path, "\(name) is over \(maximumInfoPlistBytes) bytes")
            }
            bytes += buffer.prefix(count)
        }
    }

    private static func message(of archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "no detail"
    }
}

/// An `.ipa` that cannot be read, naming the file and what to do.
public struct IPAError: Error, Equatable, CustomStringConvertible {
    public let message: String

    init(_ path: String, _ problem: String, prefixed: Bool = true) {
        message = prefixed ? "\(path): \(problem)" : problem
    }

    public var description: String { message }
}

import Foundation
import PipeApple
import PipeTestSupport
import XCTest

/// The `.ipa` reader on zips the tests write: the app's facts from a binary or XML Info.plist, the file's SHA-256
/// (checked against `sha256sum`), and every hostile shape refused with the file and the reason.
final class IPAReaderTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory(prefix: "pipe-ipa") }
    override func tearDown() { folder?.remove() }

    private let xmlInfo = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>com.example.reader</string>
        <key>CFBundleShortVersionString</key><string>1.4.2</string>
        <key>CFBundleVersion</key><string>42</string>
        <key>CFBundleExecutable</key><string>Reader</string>
        </dict></plist>
        """.utf8)

    /// `{CFBundleIdentifier: com.example.reader, CFBundleShortVersionString: 2.0, CFBundleVersion: 7}` as bplist00.
    private var binaryInfo: [UInt8] {
        func ascii(_ text: String) -> [UInt8] {
            let count = UInt8(text.utf8.count)
            return (count < 15 ? [0x50 | count] : [0x5F, 0x10, count]) + Array(text.utf8)
        }
        return PropertyListReaderTests.binary(
            objects: [
                [0xD3, 1, 2, 3, 4, 5, 6], ascii("CFBundleIdentifier"), ascii("CFBundleShortVersionString"),
                ascii("CFBundleVersion"), ascii("com.example.reader"), ascii("2.0"), ascii("7"),
            ], top: 0)
    }

    private func ipa(_ members: [ZipWriter.Member], name: String = "Reader.ipa") throws -> URL {
        let url = folder.appending(name)
        try ZipWriter.write(members, to: url)
        return url
    }

    private func app(_ info: [UInt8]) -> [ZipWriter.Member] {
        [
            .folder("Payload/"), .folder("Payload/Reader.app/"), .file("Payload/Reader.app/Info.plist", info),
            .file("Payload/Reader.app/Reader", Array(repeating: 0xCF, count: 4_096)),
            .folder("Payload/Reader.app/_CodeSignature/"),
            .file("Payload/Reader.app/_CodeSignature/CodeResources", Array("<plist/>".utf8)),
        ]
    }

    private func refusal(_ url: URL, reader: IPAReader = IPAReader()) -> String {
        do {
            _ = try reader.read(url)
            return "read"
        } catch {
            return error.message
        }
    }

    func testReadsTheAppAndDigestsTheFile() throws {
        let url = try ipa(app(xmlInfo))
        let contents = try IPAReader().read(url)
        XCTAssertEqual(contents.appPath, "Payload/Reader.app")
        XCTAssertEqual(
            contents.app,
            AppBundleInfo(
                bundleIdentifier: "com.example.reader", shortVersion: "1.4.2", buildVersion: "42",
                executable: "Reader"))
        let sha256sum = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [url.path]).stdout.prefix(64)
        XCTAssertEqual(contents.sha256, String(sha256sum))
        XCTAssertEqual(contents.size, Int64(try Data(contentsOf: url).count))
    }

    func testReadsABinaryInfoPlist() throws {
        let contents = try IPAReader().read(try ipa(app(binaryInfo)))
        XCTAssertEqual(contents.app.shortVersion, "2.0")
        XCTAssertEqual(contents.app.buildVersion, "7")
    }

    func testRefusesHostileShapes() throws {
        let path = folder.appending("Reader.ipa").path
        let cases: [(String, [ZipWriter.Member], String)] = [
            ("climbs", app(xmlInfo) + [.file("Payload/../../etc/passwd", [1])], "whose name climbs out"),
            ("absolute", [.file("/Payload/Reader.app/Info.plist", xmlInfo)], "absolute, backslashed"),
            ("twice", app(xmlInfo) + [.file("Payload/Reader.app/Info.plist", xmlInfo)], "Info.plist twice"),
            (
                "two apps", app(xmlInfo) + [.file("Payload/Other.app/Info.plist", xmlInfo)],
                "its Payload holds 2 apps (Other.app, Reader.app), not one"
            ),
            (
                "link", [.link("Payload/Reader.app/Info.plist", target: "/etc/passwd")],
                "Payload/Reader.app/Info.plist is not a regular file"
            ),
            (
                "large", [.file("Payload/Reader.app/Info.plist", Array(repeating: 0x20, count: (1 << 20) + 1))],
                "over 1048576"
            ),
            ("no plist", [.file("Payload/Reader.app/Reader", [1])], "holds no Payload/Reader.app/Info.plist"),
            ("no app", [.file("Reader.app/Info.plist", xmlInfo)], "holds no Payload/<App>.app/Info.plist"),
        ]
        for (label, members, expected) in cases {
            try? FileManager.default.removeItem(atPath: path)
            let message = refusal(try ipa(members))
            XCTAssertTrue(message.hasPrefix("\(path): "), "\(label): \(message)")
            XCTAssertTrue(message.contains(expected), "\(label): \(message)")
        }
    }

    func testRefusesTooManyEntriesAndWhatIsNoZip() throws {
        var reader = IPAReader()
        reader.maximumEntries = 5
        let url = try ipa(app(xmlInfo) + (0..<5).map { .file("Payload/Reader.app/r\($0).png", [0]) })
        XCTAssertTrue(
            refusal(url, reader: reader).hasSuffix("it holds more than 5 entries"), refusal(url, reader: reader))

        let text = folder.appending("notes.ipa")
        try Data("not a zip".utf8).write(to: text)
        XCTAssertTrue(refusal(text).contains("it is not a zip archive"), refusal(text))
        let plist = try ipa(app(Array("<plist><array/></plist>".utf8)), name: "Array.ipa")
        XCTAssertTrue(refusal(plist).hasSuffix("the Info.plist is an array, not a dictionary"), refusal(plist))
    }
}

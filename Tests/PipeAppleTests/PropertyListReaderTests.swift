import Foundation
import XCTest

@testable import PipeApple

final class PropertyListReaderTests: XCTestCase {
    func testReadsABinaryDictionaryMacOSWrote() throws {
        let plist = try PropertyListReader.read(Array(try Fixture.data("plist/openwith-xattr.bplist")))
        XCTAssertEqual(
            plist,
            .dictionary([
                "bundleidentifier": .string("com.microsoft.OneDrive.DownloadAndGo"), "version": .integer(0),
            ]))
    }

    func testReadsABinaryArrayOfOneString() throws {
        let plist = try PropertyListReader.read(Array(try Fixture.data("plist/finder-tag-red-xattr.bplist")))
        XCTAssertEqual(plist, .array([.string("Red\n6")]))
    }

    func testReadsAnArchiveInfoPlistInXML() throws {
        let plist = try PropertyListReader.read(Array(try Fixture.data("plist/xcarchive-info-fastlane.plist")))
        let application = plist["ApplicationProperties"]
        XCTAssertEqual(application?["CFBundleIdentifier"]?.string, "org.fastlane.very-capable-app")
        XCTAssertEqual(application?["ApplicationPath"]?.string, "Applications/very-capable-app.app")
        XCTAssertEqual(plist["ArchiveVersion"]?.integer, 2)
        XCTAssertEqual(plist["CreationDate"]?.date, Date(timeIntervalSince1970: 1_524_618_617))
    }

    func testReadsEveryXMLElementKind() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <plist version="1.0"><dict>
              <key>a &amp; b</key><string>&lt;x&gt; &#233;&#x263A;<![CDATA[<raw>]]></string>
              <key>empty</key><string/>
              <key>negative</key><integer>-42</integer>
              <key>real</key><real>2.5</real>
              <key>yes</key><true/>
              <key>no</key><false/>
              <key>bytes</key><data>
                AAEC
              </data>
              <key>list</key><array><integer>1</integer><array/><dict/></array>
            </dict></plist>
            """
        let plist = try PropertyListReader.read(Array(text.utf8))
        XCTAssertEqual(plist["a & b"]?.string, "<x> é☺<raw>")
        XCTAssertEqual(plist["empty"]?.string, "")
        XCTAssertEqual(plist["negative"]?.integer, -42)
        XCTAssertEqual(plist["real"], .real(2.5))
        XCTAssertEqual(plist["yes"], .boolean(true))
        XCTAssertEqual(plist["no"], .boolean(false))
        XCTAssertEqual(plist["bytes"]?.data, [0, 1, 2])
        XCTAssertEqual(plist["list"], .array([.integer(1), .array([]), .dictionary([:])]))
    }

    func testXMLErrorsSayLineAndColumn() {
        let text = "<plist>\n<dict>\n  <key>k</key><widget/>\n</dict></plist>"
        XCTAssertThrowsError(try PropertyListReader.read(Array(text.utf8))) { error in
            XCTAssertEqual("\(error)", "XML property list, line 3, column 15: <widget> is not a property list element")
        }
    }

    func testRefusesADoctypeThatDeclaresEntities() {
        let text = "<!DOCTYPE plist [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><plist><string>&x;</string></plist>"
        XCTAssertThrowsError(try PropertyListReader.read(Array(text.utf8))) { error in
            XCTAssertTrue("\(error)".contains("DOCTYPE with its own declarations"), "\(error)")
        }
    }

    func testRefusesXMLNestedPastTheLimit() {
        let text =
            "<plist>" + String(repeating: "<array>", count: 80) + String(repeating: "</array>", count: 80)
            + "</plist>"
        XCTAssertThrowsError(try PropertyListReader.read(Array(text.utf8))) { error in
            XCTAssertTrue("\(error)".contains("deeper than 64"), "\(error)")
        }
    }

    func testRefusesABinaryArrayThatContainsItself() {
        // Object 0 is an array holding object 0.
        let plist = Self.binary(objects: [[0xA1, 0x00]], top: 0)
        XCTAssertThrowsError(try PropertyListReader.read(plist)) { error in
            XCTAssertTrue("\(error)".contains("contains itself"), "\(error)")
        }
    }

    func testRefusesABinaryReferenceOutsideTheObjects() {
        let plist = Self.binary(objects: [[0xA1, 0x07]], top: 0)
        XCTAssertThrowsError(try PropertyListReader.read(plist)) { error in
            XCTAssertTrue("\(error)".contains("reference 7 is not among the 1 objects"), "\(error)")
        }
    }

    func testRefusesABinaryStringLongerThanTheFile() {
        // An ASCII string with a length of 0xFFFF given as a following 2-byte integer.
        let plist = Self.binary(objects: [[0x5F, 0x11, 0xFF, 0xFF, 0x41]], top: 0)
        XCTAssertThrowsError(try PropertyListReader.read(plist)) { error in
            XCTAssertTrue("\(error)".contains("runs past"), "\(error)")
        }
    }

    func testRefusesATruncatedBinaryPlist() throws {
        let whole = Array(try Fixture.data("plist/openwith-xattr.bplist"))
        XCTAssertThrowsError(try PropertyListReader.read(Array(whole.dropLast(10))))
    }

    func testRefusesInputAboveTheByteLimit() {
        XCTAssertThrowsError(
            try PropertyListReader.read(Array(repeating: 0x20, count: 65), limits: PropertyListLimits(maximumBytes: 64))
        ) { error in
            XCTAssertTrue("\(error)".contains("more than the 64"), "\(error)")
        }
    }

    func testAppBundleInfoReadsTheVersions() throws {
        let text = """
            <plist><dict><key>CFBundleIdentifier</key><string>com.example.reader</string>
            <key>CFBundleShortVersionString</key><string>1.4</string><key>CFBundleVersion</key><string>37</string>
            <key>CFBundleExecutable</key><string>Reader</string></dict></plist>
            """
        let info = try AppBundleInfo.read(infoPlist: Array(text.utf8), source: "Reader.ipa")
        XCTAssertEqual(
            info,
            AppBundleInfo(
                bundleIdentifier: "com.example.reader", shortVersion: "1.4", buildVersion: "37", executable: "Reader"))
    }

    func testAppBundleInfoNamesAMissingKey() {
        let text = "<plist><dict><key>CFBundleIdentifier</key><string>x</string></dict></plist>"
        XCTAssertThrowsError(try AppBundleInfo.read(infoPlist: Array(text.utf8), source: "Reader.ipa")) { error in
            XCTAssertEqual("\(error)", "Reader.ipa: the Info.plist has no CFBundleShortVersionString")
        }
    }

    /// A `bplist00` file of the given objects (1-byte offsets and references).
    static func binary(objects: [[UInt8]], top: UInt8) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let tableStart = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
        bytes += [0, 0, 0, 0, 0, 0, 0, top]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(tableStart)]
        return bytes
    }
}

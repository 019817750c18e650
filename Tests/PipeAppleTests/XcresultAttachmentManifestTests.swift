import Foundation
import PipeApple
import XCTest

/// The manifest is built here from the keys real consumers decode (bitrise go-xcode `model3/export.go`): no
/// byte-exact capture is public (Fixtures/README.md). Pretty-printed with `" : "`, as xcresulttool writes JSON.
final class XcresultAttachmentManifestTests: XCTestCase {
    static let manifest = """
        [
          {
            "attachments" : [
              {
                "configurationName" : "Test Scheme Action",
                "deviceId" : "C051CA11-78BB-41FA-BBA0-9D46165D1F86",
                "deviceName" : "iPhone 15",
                "exportedFileName" : "0F3C2A44-6C5E-4E0B-9E62-3A1D2E7B9C11.png",
                "isAssociatedWithFailure" : true,
                "suggestedHumanReadableName" : "Screenshot_0_3D4AB1CF-5A6B-4C7D-8E9F-0A1B2C3D4E5F.png",
                "timestamp" : 1733211120.5
              },
              {
                "exportedFileName" : "7A1B.txt",
                "isAssociatedWithFailure" : false,
                "repetitionNumber" : 2,
                "suggestedHumanReadableName" : "log_1_7A1B.txt",
                "timestamp" : 1733211121
              }
            ],
            "testIdentifier" : "ReaderTests/ReadingIDTests/testEmpty()"
          }
        ]
        """

    func testTheKeysRealConsumersRead() throws {
        let manifest = try XcresultAttachmentManifest.decode(Data(Self.manifest.utf8))
        let test = try XCTUnwrap(manifest.tests.first)
        XCTAssertEqual(test.testIdentifier, "ReaderTests/ReadingIDTests/testEmpty()")
        XCTAssertEqual(
            test.attachments.map(\.exportedFileName), ["0F3C2A44-6C5E-4E0B-9E62-3A1D2E7B9C11.png", "7A1B.txt"])
        XCTAssertEqual(test.attachments.map(\.isAssociatedWithFailure), [true, false])
        XCTAssertEqual(test.attachments[1].repetitionNumber, 2)
        XCTAssertNil(test.attachments[1].deviceName)
        XCTAssertEqual(try XCTUnwrap(test.attachments[0].timestamp), 1_733_211_120.5, accuracy: 0.001)
    }

    func testAnythingButAnArrayIsRefused() {
        XCTAssertThrowsError(try XcresultAttachmentManifest.decode(Data(#"{"attachments": []}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("is not a JSON array"), "\(error)")
        }
        XCTAssertThrowsError(try XcresultAttachmentManifest.decode(Data(#"[{"testIdentifier": 3}]"#.utf8)))
    }

    func testOnlyPlainFileNamesAreOpened() {
        XCTAssertTrue(XcresultAttachmentManifest.isPlainFileName("Screenshot_0_3D4A.png"))
        for hostile in [
            "", ".", "..", "../../.ssh/authorized_keys", "/etc/passwd", "a/b.png", "a\\b", "a\u{1B}[2J.png",
        ] {
            XCTAssertFalse(XcresultAttachmentManifest.isPlainFileName(hostile), hostile)
        }
        XCTAssertFalse(XcresultAttachmentManifest.isPlainFileName(String(repeating: "a", count: 256)))
    }

    func testOnlyImageBytesAreImages() {
        XCTAssertEqual(
            AttachmentContent.detectedImageType(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])), "image/png")
        XCTAssertEqual(AttachmentContent.detectedImageType(Data([0xFF, 0xD8, 0xFF, 0xE0])), "image/jpeg")
        XCTAssertNil(AttachmentContent.detectedImageType(Data("<html><script>".utf8)))
        XCTAssertEqual(AttachmentContent.claimedType(fileName: "x.PNG"), "image/png")
        XCTAssertEqual(AttachmentContent.claimedType(fileName: "x.html"), "application/octet-stream")
    }
}

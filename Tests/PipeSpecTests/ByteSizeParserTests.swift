import PipeSpec
import XCTest

/// Sizes in pipeline files: decimal and binary units, or plain bytes; nothing else.
final class ByteSizeParserTests: XCTestCase {
    func testUnitsAndPlainBytes() {
        XCTAssertEqual(ByteSizeParser.bytes(from: "512KB"), 512_000)
        XCTAssertEqual(ByteSizeParser.bytes(from: "64MB"), 64_000_000)
        XCTAssertEqual(ByteSizeParser.bytes(from: "2GiB"), 2 << 30)
        XCTAssertEqual(ByteSizeParser.bytes(from: "1 MiB"), 1 << 20)
        XCTAssertEqual(ByteSizeParser.bytes(from: "4096"), 4_096)
        XCTAssertEqual(ByteSizeParser.bytes(from: "10b"), 10)
    }

    func testAnythingElseIsRefused() {
        for text in ["", "0", "-5MB", "1.5GB", "5TB", "MB", "9999999999999GiB", "12 parsecs"] {
            XCTAssertNil(ByteSizeParser.bytes(from: text), text)
        }
    }
}

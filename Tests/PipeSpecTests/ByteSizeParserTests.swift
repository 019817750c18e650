import PipeCore
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
        for text in ["", "0", "-5MB", "1.5GB", "5PB", "MB", "9999999999999GiB", "12 parsecs"] {
            XCTAssertNil(ByteSizeParser.bytes(from: text), text)
        }
    }
}

/// `log-limit` and `artifact-limit` reach the layer, and a wrong size is placed.
final class LayerLimitSpecTests: XCTestCase {
    func testTheLimitsReachTheLayerAndAWrongOneIsPlaced() throws {
        let pipeline = try SpecFixtures.pipeline(
            "layers:\n  ui: { plugin: shell, run: x, log-limit: 64MB, artifact-limit: 2GiB }\n")
        XCTAssertEqual(pipeline.layers.first?.logLimitBytes, 64_000_000)
        XCTAssertEqual(pipeline.layers.first?.artifactLimitBytes, 2 << 30)
        XCTAssertEqual(
            SpecFixtures.errors("layers:\n  ui: { plugin: shell, run: x, log-limit: lots }\n"),
            [
                "pipelines/test.yml:2:43: error: layers.ui.log-limit: expected a size such as 512KB, 64MB, 2GiB, 1TiB or "
                    + "a number of bytes, found 'lots'"
            ])
    }
}

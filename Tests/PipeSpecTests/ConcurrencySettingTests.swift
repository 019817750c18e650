import Foundation
import PipeCore
import PipeSpec
import XCTest

/// `concurrency:` of a pipeline: how many layers may run at a time.
final class ConcurrencySettingTests: XCTestCase {
    private let layers = "layers:\n  logic:\n    plugin: xcodebuild-test\n    scheme: Reader\n"

    func testAbsentLeavesTheChoiceToTheEngine() throws {
        let pipeline = try SpecFixtures.loader.load(yaml: layers, file: "pipelines/p.yml")
        XCTAssertNil(pipeline.concurrency)
    }

    func testANumberBoundsTheLayersAtATime() throws {
        let pipeline = try SpecFixtures.loader.load(yaml: "concurrency: 1\n" + layers, file: "pipelines/p.yml")
        XCTAssertEqual(pipeline.concurrency, 1)
    }

    func testOutOfRangeAndWrongTypesAreReportedWithTheirPosition() {
        for (value, expected) in [
            ("0", "pipelines/p.yml:1:14: error: concurrency: 0 layers at a time: give a number from 1 to 8"),
            ("9", "pipelines/p.yml:1:14: error: concurrency: 9 layers at a time: give a number from 1 to 8"),
            ("\"2\"", "pipelines/p.yml:1:14: error: concurrency: expected an integer, found the quoted text \"2\""),
            ("many", "pipelines/p.yml:1:14: error: concurrency: expected an integer"),
        ] {
            XCTAssertThrowsError(
                try SpecFixtures.loader.load(yaml: "concurrency: \(value)\n" + layers, file: "pipelines/p.yml")
            ) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(value): \(error)")
            }
        }
    }

    func testATypoSuggestsTheKey() {
        XCTAssertThrowsError(try SpecFixtures.loader.load(yaml: "concurency: 2\n" + layers, file: "pipelines/p.yml")) {
            XCTAssertTrue("\($0)".contains("concurency: unknown key; did you mean 'concurrency'?"), "\($0)")
        }
    }
}

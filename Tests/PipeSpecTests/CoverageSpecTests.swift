import Foundation
import PipeCore
import PipeSpec
import XCTest

/// A layer's `coverage:`: `true` or `{ minimum, targets }` on an xcodebuild-test layer, refused elsewhere and when
/// out of range, at its line and column.
final class CoverageSpecTests: XCTestCase {
    private func layer(_ coverage: String, plugin: String = "xcodebuild-test") -> String {
        let settings = plugin == "shell" ? "run: make" : "scheme: Reader"
        return "layers:\n  logic:\n    plugin: \(plugin)\n    \(settings)\n    coverage: \(coverage)\n"
    }

    func testAMinimumAndTargetsAreRead() throws {
        let pipeline = try SpecFixtures.pipeline(layer("{ minimum: 72.5%, targets: [Reader, ReaderKit] }"))
        XCTAssertEqual(
            pipeline.layers.first?.coverage,
            CoverageRequirement(minimumPercent: 72.5, targets: ["Reader", "ReaderKit"]))
        XCTAssertEqual(
            try SpecFixtures.pipeline(layer("{ minimum: 80 }")).layers.first?.coverage,
            CoverageRequirement(minimumPercent: 80))
    }

    func testTrueOnlyMeasuresAndFalseOrAbsentMeasuresNothing() throws {
        XCTAssertEqual(try SpecFixtures.pipeline(layer("true")).layers.first?.coverage, CoverageRequirement())
        XCTAssertNil(try SpecFixtures.pipeline(layer("false")).layers.first?.coverage)
        XCTAssertNil(
            try SpecFixtures.pipeline("layers:\n  logic: { plugin: xcodebuild-test, scheme: R }\n").layers.first?
                .coverage)
    }

    func testOutOfRangeUnknownKeysAndOtherPluginsAreRefusedWhereTheyStand() {
        XCTAssertEqual(
            SpecFixtures.errors(layer("{ minimum: 120% }")),
            [
                "pipelines/test.yml:5:26: error: layers.logic.coverage.minimum: expected a percentage from 0 to 100, e.g. 80%, found '120%'"
            ])
        XCTAssertEqual(
            SpecFixtures.errors(layer("{ minimal: 80% }")).first?.hasPrefix(
                "pipelines/test.yml:5:17: error: layers.logic.coverage.minimal: unknown key"), true,
            "\(SpecFixtures.errors(layer("{ minimal: 80% }")))")
        XCTAssertEqual(
            SpecFixtures.errors(layer("true", plugin: "shell")),
            [
                "pipelines/test.yml:5:15: error: layers.logic.coverage: a shell layer does not measure coverage; "
                    + "remove `coverage:` or use it on an xcodebuild-test layer"
            ])
    }
}

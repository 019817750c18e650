import Foundation
import PipeCore
import PipeReport
import XCTest

/// summary.md names a build that several layers shared and the building time the others did not spend.
final class SharedBuildSummaryTests: XCTestCase {
    func testABuildSharedByTwoLayersIsNamedWithItsTimeAndWhatItSaved() {
        var record = SampleRecords.everyField()
        var logic = record.layers[0]
        let shared = [
            "sharedBuild": "logic, intent", "sharedBuildBy": "logic", "sharedBuildSeconds": "12.340",
            "sharedBuildLog": "artifacts/r/build-for-testing/logic+intent/xcodebuild.log",
        ]
        logic.attempts[0].facts.merge(shared.merging(["buildSecondsSaved": "0.000"]) { $1 }) { $1 }
        var intent = logic
        intent.name = "intent"
        intent.attempts[0].facts["buildSecondsSaved"] = "12.340"
        record.layers = [logic, intent]
        let text = MarkdownSummary.render(record)
        XCTAssertTrue(
            text.contains(
                "**Built once** for `logic`, `intent` by `logic` in 12.3 s; 12.3 s of building saved (log "
                    + "`artifacts/r/build-for-testing/logic+intent/xcodebuild.log`).\n"), text)
        XCTAssertEqual(text.components(separatedBy: "**Built once**").count, 2, "one line per build")
    }

    func testNoLineWithoutASharedBuild() {
        XCTAssertFalse(MarkdownSummary.render(SampleRecords.everyField()).contains("Built once"))
    }

    func testHowEachLayerBuiltIsOneLine() {
        var record = SampleRecords.everyField()
        var warm = record.layers[0]
        warm.name = "intent"
        warm.build = BuildCacheUse(state: .warm, cache: "release-0123456789abcdef-2")
        var unbuilt = record.layers[0]
        unbuilt.name = "shortcuts"
        unbuilt.build = nil
        record.layers += [warm, unbuilt]
        let text = MarkdownSummary.render(record)
        XCTAssertTrue(
            text.contains(
                "**Builds:** `logic` cold in `release-0123456789abcdef-1` (clean: true); `intent` warm in "
                    + "`release-0123456789abcdef-2`.\n"), text)
        record.layers = [unbuilt]
        XCTAssertFalse(MarkdownSummary.render(record).contains("**Builds:**"), "no line when no layer built")
    }
}

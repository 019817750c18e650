import Foundation
import PipeCore
import XCTest

@testable import XcodebuildTestPlugin

/// Which `xcodebuild-test` layers share one `build-for-testing`, which do not and why, and what the record says.
final class SharedBuildPlanTests: XCTestCase {
    private func layer(_ name: String, plugin: String = "xcodebuild-test", _ settings: [String: SettingValue] = [:])
        -> LayerSpec
    {
        var all: [String: SettingValue] = ["scheme": .string("Reader")]
        all.merge(settings) { _, new in new }
        return LayerSpec(name: name, plugin: plugin, settings: all)
    }

    func testLayersThatDifferOnlyInWhichTestsRunShareOneBuild() {
        let logic = layer("logic", ["only-testing": .strings(["ReaderTests/ReadingIDTests"])])
        let intent = layer(
            "intent",
            ["only-testing": .strings(["ReaderTests/CheckReadingIDIntentTests"]), "skip-testing": .strings(["X"])])
        var slow = layer("slow")
        slow.timeoutSeconds = 3600
        slow.secrets = ["TOKEN"]
        let run = [logic, intent, slow]
        for member in run {
            XCTAssertEqual(SharedBuildPlan.sharers(of: member, among: run).map(\.name), ["logic", "intent", "slow"])
        }
        XCTAssertEqual(SharedBuildPlan.differences(between: logic, and: intent), [])
    }

    func testWhatGoesIntoTheBuildKeepsLayersApart() {
        let base = layer("base", ["project": .string("Reader.xcodeproj")])
        let cases: [(LayerSpec, String)] = [
            (
                layer("other-scheme", ["scheme": .string("Haptics"), "project": .string("Reader.xcodeproj")]),
                "scheme Reader ≠ Haptics"
            ),
            (
                layer("workspace", ["workspace": .string("Reader.xcworkspace")]),
                "project Reader.xcodeproj ≠ workspace Reader.xcworkspace"
            ),
            (
                layer("release", ["project": .string("Reader.xcodeproj"), "configuration": .string("Release")]),
                "configuration (default) ≠ Release"
            ),
            (
                layer("tsan", ["project": .string("Reader.xcodeproj"), "build-settings": .map(["SWIFT_TSAN": "YES"])]),
                "different build-settings"
            ),
            (
                layer("plan", ["project": .string("Reader.xcodeproj"), "test-plan": .string("Nightly")]),
                "test plan (scheme's) ≠ Nightly"
            ),
        ]
        for (other, reason) in cases {
            let run = [base, other]
            XCTAssertEqual(SharedBuildPlan.sharers(of: base, among: run).map(\.name), ["base"], other.name)
            XCTAssertEqual(SharedBuildPlan.sharers(of: other, among: run).map(\.name), [other.name])
            XCTAssertEqual(SharedBuildPlan.differences(between: base, and: other), [reason])
        }
    }

    func testEqualBuildSettingsInAnyOrderShare() {
        let first = layer("a", ["build-settings": .map(["A": "1", "B": "2"])])
        let second = layer("b", ["build-settings": .map(["B": "2", "A": "1"])])
        XCTAssertEqual(SharedBuildPlan.sharers(of: first, among: [first, second]).map(\.name), ["a", "b"])
    }

    func testALayerWithNothingToShareRunsAlone() {
        let logic = layer("logic")
        let intent = layer("intent")
        let checklist = layer("shortcuts", plugin: "checklist")
        // `--only logic` (or intent carried over by a rerun): the run has no other layer of the scheme.
        XCTAssertEqual(SharedBuildPlan.sharers(of: logic, among: [logic, checklist]).map(\.name), ["logic"])
        // A caller that does not say which layers run (the default): alone, plain `xcodebuild test`.
        XCTAssertEqual(SharedBuildPlan.sharers(of: logic, among: []).map(\.name), ["logic"])
        // A layer that says `share-build: false` neither joins nor is joined.
        let alone = layer("intent", ["share-build": .boolean(false)])
        XCTAssertEqual(SharedBuildPlan.sharers(of: logic, among: [logic, alone]).map(\.name), ["logic"])
        XCTAssertEqual(SharedBuildPlan.sharers(of: alone, among: [logic, alone]).map(\.name), ["intent"])
        XCTAssertEqual(
            SharedBuildPlan.differences(between: logic, and: alone), ["intent says share-build: false"])
        XCTAssertEqual(
            SharedBuildPlan.differences(between: logic, and: checklist), ["shortcuts is a checklist layer"])
        // `share-build: true` is the default spelled out.
        let explicit = layer("explicit", ["share-build": .boolean(true)])
        XCTAssertEqual(
            SharedBuildPlan.sharers(of: logic, among: [logic, intent, explicit]).map(\.name),
            ["logic", "intent", "explicit"])
    }

    func testTheKeySeparatesHostsAndPlatforms() {
        let key = SharedBuild.key(layers: ["logic", "intent"], platform: "iOS", host: "mac-1")
        XCTAssertNotEqual(key, SharedBuild.key(layers: ["logic", "intent"], platform: "iOS", host: "mac-2"))
        XCTAssertNotEqual(key, SharedBuild.key(layers: ["logic", "intent"], platform: "tvOS", host: "mac-1"))
        XCTAssertNotEqual(key, SharedBuild.key(layers: ["logic"], platform: "iOS", host: "mac-1"))
        XCTAssertEqual(SharedBuild.label(["logic", "intent"]), "logic+intent")
        XCTAssertTrue(SharedBuild.label(["unit tests", "ui"]).hasPrefix("unit-tests-"), "a path-safe name")
    }

    func testFactsSayWhoBuiltHowLongAndWhatEachLayerSaved() {
        var build = SharedBuild(
            layers: ["logic", "intent"], builtBy: "logic", host: "mac-1", exit: .exited(0), outcome: .passed,
            evidence: [], seconds: 42.5, derivedDataPath: "/w/runs/r/DerivedData/logic+intent",
            command: "xcodebuild build-for-testing …", artifacts: [],
            folder: "artifacts/r/build-for-testing/logic+intent",
            log: URL(fileURLWithPath: "/p/artifacts/r/build-for-testing/logic+intent/xcodebuild.log"), processGroup: nil
        )
        let builder = build.facts(for: "logic")
        XCTAssertEqual(builder["sharedBuild"], "logic, intent")
        XCTAssertEqual(builder["sharedBuildBy"], "logic")
        XCTAssertEqual(builder["sharedBuildSeconds"], "42.500")
        XCTAssertEqual(builder["buildSecondsSaved"], "0.000", "the layer that built saved nothing")
        XCTAssertEqual(builder["sharedBuildLog"], "artifacts/r/build-for-testing/logic+intent/xcodebuild.log")
        XCTAssertEqual(build.facts(for: "intent")["buildSecondsSaved"], "42.500")
        build.outcome = .buildFailed
        XCTAssertEqual(build.facts(for: "intent")["buildSecondsSaved"], "0.000", "a failed build saves nothing")
    }
}

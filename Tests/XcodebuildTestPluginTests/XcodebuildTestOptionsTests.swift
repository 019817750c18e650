import Foundation
import PipeApple
import PipeCore
import PipeSpec
import XCTest

@testable import XcodebuildTestPlugin

/// `parallel`, `test-timeouts` and `xcodebuild-arguments` of an `xcodebuild-test` layer: the options they become,
/// each one quoted word, and the owned flags and settings refused when the pipeline loads and again before a run.
final class XcodebuildTestOptionsTests: XCTestCase {
    private let loader = PipelineLoader(registry: PluginSchema.registry([XcodebuildTestPlugin.self]))

    private func layer(_ body: String) throws -> LayerSpec {
        let yaml = "layers:\n  logic:\n    plugin: xcodebuild-test\n    scheme: Reader\n" + body
        return try loader.load(yaml: yaml, file: "pipelines/p.yml").layers[0]
    }

    private func errors(_ body: String) -> [String] {
        do {
            _ = try layer(body)
            XCTFail("expected errors")
            return []
        } catch let error as SpecErrors {
            return error.problems.map(\.description)
        } catch {
            XCTFail("\(error)")
            return []
        }
    }

    private func command(_ layer: LayerSpec) throws -> XcodebuildCommand {
        try XcodebuildCommand(
            container: .package, scheme: "Reader", destination: .init(simulatorPlatform: "iOS", udid: "ABC-1"),
            resultBundlePath: "/r/b.xcresult", options: try XcodebuildTestOptions.options(of: layer))
    }

    func testParallelWorkersAndTimeoutsBecomeXcodesOptions() throws {
        let spec = try layer(
            "    parallel: { workers: 3 }\n    test-timeouts: { default: 60s, maximum: 5m }\n")
        XCTAssertEqual(
            try XcodebuildTestOptions.options(of: spec),
            [
                "-parallel-testing-enabled", "YES", "-parallel-testing-worker-count", "3",
                "-test-timeouts-enabled", "YES", "-default-test-execution-time-allowance", "60",
                "-maximum-test-execution-time-allowance", "300",
            ])
        let off = try layer("    parallel: { enabled: false }\n")
        XCTAssertEqual(try XcodebuildTestOptions.options(of: off), ["-parallel-testing-enabled", "NO"])
        XCTAssertEqual(try XcodebuildTestOptions.options(of: try layer("")), [])
    }

    func testExtraArgumentsReachTheShellAsQuotedWords() throws {
        let spec = try layer(
            "    xcodebuild-arguments: [-enableCodeCoverage, 'YES', -testLanguage, \"fr; rm -rf ~\", \"A B=1\"]\n")
        let line = try command(spec).shellLine
        XCTAssertTrue(
            line.hasSuffix(
                "'-resultBundlePath' '/r/b.xcresult' '-enableCodeCoverage' 'YES' '-testLanguage' 'fr; rm -rf ~' "
                    + "'A B=1'")
                || line.hasSuffix(
                    "-resultBundlePath /r/b.xcresult -enableCodeCoverage YES -testLanguage 'fr; rm -rf ~' 'A B=1'"),
            line)
        XCTAssertEqual(
            try command(spec).arguments.suffix(5),
            ["-enableCodeCoverage", "YES", "-testLanguage", "fr; rm -rf ~", "A B=1"])
    }

    func testOwnedFlagsAndSettingsAreRefusedAtTheirEntryWithTheKeyToUse() {
        let problems = errors(
            """
                xcodebuild-arguments:
                  - -enableCodeCoverage
                  - "YES"
                  - -resultBundlePath
                  - /tmp/x.xcresult
                  - --derivedDataPath=/tmp/dd
                  - -only-testing:ReaderTests/A
                  - SYMROOT=/tmp/products
                  - test
                build-settings:
                  OTHER_CODE_SIGN_FLAGS: --keychain /tmp/k
                  SWIFT_VERSION: "6"

            """)
        XCTAssertEqual(problems.count, 6, "\(problems)")
        XCTAssertTrue(
            problems[0].hasPrefix(
                "pipelines/p.yml:8:9: error: layers.logic.xcodebuild-arguments[2]: '-resultBundlePath' is set by Pipe"),
            problems[0])
        XCTAssertTrue(
            problems[1].contains(
                ":10:9: error: layers.logic.xcodebuild-arguments[4]: '--derivedDataPath=/tmp/dd' is set by Pipe"),
            problems[1])
        XCTAssertTrue(
            problems[2].contains(":11:9:") && problems[2].contains("use the layer's `only-testing:`"), problems[2])
        XCTAssertTrue(
            problems[3].contains(":12:9:") && problems[3].contains("the build setting SYMROOT is set by Pipe"),
            problems[3])
        XCTAssertTrue(
            problems[4].contains(":13:9:") && problems[4].contains("'test' is an xcodebuild action"), problems[4])
        XCTAssertTrue(
            problems[5].contains(":15:30: error: layers.logic.build-settings.OTHER_CODE_SIGN_FLAGS:")
                && problems[5].contains("code signing is Pipe's"), problems[5])
    }

    func testAFlagHiddenInAParameterIsRefusedAfterInterpolation() throws {
        let yaml = """
            parameters:
              extra: { default: -enableCodeCoverage }
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                xcodebuild-arguments: ["${extra}", "YES"]
            """
        let fine = try loader.load(yaml: yaml, file: "pipelines/p.yml").layers[0]
        XCTAssertEqual(try XcodebuildTestOptions.options(of: fine), ["-enableCodeCoverage", "YES"])
        do {
            _ = try loader.load(yaml: yaml, file: "pipelines/p.yml", parameters: ["extra": "-destination"])
            XCTFail("a parameter naming an owned flag must be refused")
        } catch {
            XCTAssertEqual(
                error.problems.map(\.description),
                [
                    "pipelines/p.yml:7:28: error: layers.logic.xcodebuild-arguments[0]: '-destination' is set by "
                        + "Pipe: the simulator comes from the layer's `simulator:`; remove it"
                ])
        }
    }

    func testThePluginRefusesOwnedValuesHoweverTheLayerWasMade() {
        let made = LayerSpec(
            name: "logic", plugin: XcodebuildTestPlugin.kind,
            settings: [
                "scheme": .string("Reader"), "xcodebuild-arguments": .strings(["-scheme", "Other"]),
                "parallel": .map(["workers": "0"]),
            ])
        XCTAssertThrowsError(try XcodebuildTestOptions.options(of: made)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("layer logic: parallel: workers: 0 workers: give 1 or more"), text)
            XCTAssertTrue(text.contains("xcodebuild-arguments: entry 1: '-scheme' is set by Pipe"), text)
        }
    }

    func testParallelAndTimeoutMistakesAreReported() {
        let problems = errors(
            "    parallel: { workers: 0 }\n    test-timeouts: { default: 10m, maximum: 1m, max: 2 }\n")
        XCTAssertTrue(problems.contains { $0.contains("parallel.workers: 0 workers: give 1 or more") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("test-timeouts.max: unknown key") }, "\(problems)")
        XCTAssertTrue(
            problems.contains { $0.contains("test-timeouts.default: the default is above the maximum") }, "\(problems)")
    }

    func testUserArgumentsThatArePipesOwnAreAllListed() {
        for flag in [
            "-resultBundlePath", "-derivedDataPath", "-destination", "-scheme", "-only-testing",
            "-clonedSourcePackagesDirPath", "-retry-tests-on-failure", "-test-iterations", "-xcconfig",
            "-parallel-testing-worker-count", "-maximum-test-execution-time-allowance", "-RESULTBUNDLEPATH",
        ] {
            XCTAssertNotNil(XcodebuildOwnedOptions.refusal(forArgument: flag), flag)
        }
        for setting in ["SYMROOT", "OBJROOT", "BUILD_DIR", "OTHER_CODE_SIGN_FLAGS", "SYMROOT[sdk=iphoneos*]"] {
            XCTAssertNotNil(XcodebuildOwnedOptions.refusal(forBuildSetting: setting), setting)
        }
        for allowed in [
            "-enableCodeCoverage", "YES", "-destination-timeout", "-skipMacroValidation", "SWIFT_VERSION=6",
        ] {
            XCTAssertNil(XcodebuildOwnedOptions.refusal(forArgument: allowed), allowed)
        }
    }

    func testExtraArgumentsKeepLayersFromSharingABuild() {
        let plain = LayerSpec(name: "a", plugin: XcodebuildTestPlugin.kind, settings: ["scheme": .string("R")])
        var covered = plain
        covered.name = "b"
        covered.settings["xcodebuild-arguments"] = .strings(["-enableCodeCoverage", "YES"])
        XCTAssertEqual(SharedBuildPlan.differences(between: plain, and: covered), ["different xcodebuild-arguments"])
        var parallel = plain
        parallel.name = "c"
        parallel.settings["parallel"] = .map(["workers": "2"])
        XCTAssertEqual(SharedBuildPlan.differences(between: plain, and: parallel), [])
    }
}

/// A test retry on an Xcode before 13: `-only-testing` for each failed test, or every test when a target is unknown.
final class RetriedTestSelectionTests: XCTestCase {
    func testEachFailedTestBecomesTargetSuiteAndMethod() {
        let tests = [
            TestCaseResult(identifier: "ReadingIDTests/testTrims()", status: .failed, target: "ReaderTests"),
            TestCaseResult(identifier: "Checks/rejects(input:)", status: .failed, target: "KitTests"),
            TestCaseResult(identifier: "ReadingIDTests/testTrims()", status: .failed, target: "ReaderTests"),
        ]
        XCTAssertEqual(
            XcodebuildTestOptions.onlyTesting(retrying: tests),
            ["ReaderTests/ReadingIDTests/testTrims", "KitTests/Checks/rejects(input:)"])
    }

    func testAFailedTestWithoutATargetRunsEveryTestAgain() {
        let tests = [
            TestCaseResult(identifier: "A/t()", status: .failed, target: "AppTests"),
            TestCaseResult(identifier: "B/u()", status: .failed),
        ]
        XCTAssertNil(XcodebuildTestOptions.onlyTesting(retrying: tests))
        XCTAssertNil(XcodebuildTestOptions.onlyTesting(retrying: []))
    }
}

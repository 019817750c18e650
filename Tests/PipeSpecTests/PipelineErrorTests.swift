import Foundation
import PipeCore
import PipeSpec
import XCTest

/// Every kind of pipeline error, with its exact position, key path and message.
final class PipelineErrorTests: XCTestCase {
    func testEveryProblemOfAFileIsReportedAtOnceInPositionOrder() {
        let url = SpecFixtures.folder.appendingPathComponent("pipelines/many-errors.yml")
        XCTAssertThrowsError(try SpecFixtures.loader.load(path: url, parameters: [:], environment: [:])) { error in
            guard let errors = error as? SpecErrors else { return XCTFail("unexpected \(error)") }
            let file = url.relativePath
            XCTAssertEqual(
                errors.description.components(separatedBy: "\n"),
                [
                    "\(file):4:14: error: repository.workspace: '../outside' must be a folder inside the repository: "
                        + "a relative path without '..'",
                    "\(file):6:9: error: host.name: write either 'name:' or 'names:', not both",
                    "\(file):9:13: error: simulator.platform: 'ios' is not one of 'iOS', 'tvOS', 'watchOS' or "
                        + "'visionOS'; did you mean 'iOS'?",
                    "\(file):10:12: error: simulator.runtime: '17.x' is not a runtime; write 'latest', a version such "
                        + "as '17.5', or 'iOS 17.5'",
                    "\(file):11:8: error: flaky: 'sometimes' is not one of 'allow' or 'block'",
                    "\(file):17:5: error: layers.logic.timout: unknown key; did you mean 'timeout'?",
                    "\(file):19:48: error: layers.logic.only-testing[1]: expected text, found a mapping",
                    "\(file):21:13: error: layers.intent.plugin: unknown plugin kind 'xcodebuild-tests'; did you mean "
                        + "'xcodebuild-test'?",
                    "\(file):23:3: error: layers.UI Tests: 'UI Tests' cannot name a layer (it becomes a folder name): "
                        + "use lowercase letters, digits, '_' and '-', starting with a letter or digit",
                    "\(file):28:11: error: layers.checks.gate: 'later' is not one of 'merge' or 'release'",
                    "\(file):29:20: error: layers.checks.needs[1]: no layer is named 'intnet'; did you mean 'intent'?",
                    "\(file):30:14: error: layers.checks.timeout: expected a duration such as 90s, 10m, 1h30m, 14d, or a "
                        + "number of seconds, found 'soon'",
                ])
            XCTAssertTrue(errors.problems.allSatisfy { $0.severity == .error && $0.file == file })
        }
    }

    func testProblemCarriesFileLineColumnAndKeyPathAsFields() {
        let problems = errorProblems(
            """
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                timout: 10m
            """, file: "pipelines/app-intents.yml")
        XCTAssertEqual(
            problems,
            [
                SpecProblem(
                    file: "pipelines/app-intents.yml", mark: SourceMark(line: 5, column: 5),
                    keyPath: "layers.logic.timout", message: "unknown key; did you mean 'timeout'?")
            ])
        XCTAssertEqual(
            problems.first?.description,
            "pipelines/app-intents.yml:5:5: error: layers.logic.timout: unknown key; did you mean 'timeout'?")
    }

    func testUnknownKeyWithoutNearNameListsTheValidKeys() {
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                layers:
                  build: { plugin: shell, run: make }
                notifications: slack
                """),
            [
                "pipelines/test.yml:3:1: error: notifications: unknown key; expected one of 'concurrency', "
                    + "'description', 'flaky', 'host', 'layers', 'parameters', 'repository', 'retry', 'secrets' or "
                    + "'simulator'"
            ])
        XCTAssertEqual(
            SpecFixtures.errors("layers:\n  ui: { plugin: shell, run: x, colour: red }\n"),
            [
                "pipelines/test.yml:2:32: error: layers.ui.colour: unknown key; expected one of 'artifact-limit', "
                    + "'build-cache', 'clean', 'coverage', 'gate', 'log-limit', 'needs', 'plugin', 'retry', 'run', 'secrets' "
                    + "or 'timeout'"
            ])
    }

    func testWrongTypesSayWhatWasExpectedAndWhatWasFound() {
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                description: [a, b]
                repository: main
                layers:
                  logic:
                    plugin: xcodebuild-test
                    scheme: { name: Reader }
                    only-testing: { a: b }
                    parallel: "yes"
                    retries: many
                    environment: [A=1]
                    needs: { logic: true }
                """),
            [
                "pipelines/test.yml:1:14: error: description: expected text, found a list",
                "pipelines/test.yml:2:13: error: repository: expected a mapping, found the text 'main'",
                "pipelines/test.yml:6:13: error: layers.logic.scheme: expected text, found a mapping",
                "pipelines/test.yml:7:19: error: layers.logic.only-testing: expected a list of text values, found a "
                    + "mapping; write [first, second]",
                "pipelines/test.yml:8:15: error: layers.logic.parallel: expected a boolean (true or false), found the "
                    + "quoted text \"yes\"; remove the quotes",
                "pipelines/test.yml:9:14: error: layers.logic.retries: expected an integer, found the text 'many'",
                "pipelines/test.yml:10:18: error: layers.logic.environment: expected a mapping of text to text, found "
                    + "a list",
                "pipelines/test.yml:11:12: error: layers.logic.needs: expected a list of text values, found a mapping; "
                    + "write [first, second]",
            ])
    }

    func testMissingRequiredKeysAndSettings() {
        XCTAssertEqual(
            SpecFixtures.errors("description: nothing to run\n"),
            ["pipelines/test.yml:1:1: error: missing required key 'layers'; add 'layers:' with at least one layer"])
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                layers:
                  logic:
                    timeout: 5m
                  intent:
                    plugin: xcodebuild-test
                    only-testing: [ReaderTests]
                  manual:
                    plugin:
                    items: [a]
                """),
            [
                "pipelines/test.yml:3:5: error: layers.logic: missing required key 'plugin'; name the plugin that runs "
                    + "it, one of 'checklist', 'shell' or 'xcodebuild-test'",
                "pipelines/test.yml:5:5: error: layers.intent: missing required key 'scheme'; scheme (string): the "
                    + "shared scheme to test",
                "pipelines/test.yml:8:12: error: layers.manual.plugin: needs a value; name the plugin that runs it, one "
                    + "of 'checklist', 'shell' or 'xcodebuild-test'",
            ])
    }

    func testLayersMustBeANonEmptyMapping() {
        XCTAssertEqual(
            SpecFixtures.errors("layers:\n  - plugin: shell\n    run: x\n"),
            ["pipelines/test.yml:2:3: error: layers: expected a mapping of layer names to layers, found a list"])
        XCTAssertEqual(
            SpecFixtures.errors("layers: {}\n"),
            ["pipelines/test.yml:1:9: error: layers: a pipeline needs at least one layer"])
        XCTAssertEqual(
            SpecFixtures.errors("layers:\n  logic: xcodebuild-test\n"),
            [
                "pipelines/test.yml:2:10: error: layers.logic: expected a layer (a mapping with 'plugin:'), found the "
                    + "text 'xcodebuild-test'"
            ])
    }

    func testLayerNamesBecomeFolderNames() {
        let pipeline = try? SpecFixtures.pipeline("layers:\n  0-unit_tests-2: { plugin: shell, run: x }\n")
        XCTAssertEqual(pipeline?.layers.first?.name, "0-unit_tests-2")
        for bad in ["Logic", "_logic", "-logic", "lo gic", "logic/ui", "ロジック"] {
            XCTAssertEqual(
                SpecFixtures.errors("layers:\n  \"\(bad)\": { plugin: shell, run: x }\n").first,
                "pipelines/test.yml:2:3: error: layers.\(bad): '\(bad)' cannot name a layer (it becomes a folder name): "
                    + "use lowercase letters, digits, '_' and '-', starting with a letter or digit", bad)
        }
    }

    func testDuplicateKeysAreReportedWithTheFirstPosition() {
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                layers:
                  logic:
                    plugin: shell
                    run: make test
                    run: make check
                  logic:
                    plugin: shell
                    run: x
                flaky: allow
                flaky: block
                """),
            [
                "pipelines/test.yml:5:5: error: layers.logic.run: duplicate key (first written at line 4, column 5); "
                    + "keep only one",
                "pipelines/test.yml:6:3: error: layers.logic: duplicate key (first written at line 2, column 3); keep "
                    + "only one",
                "pipelines/test.yml:10:1: error: flaky: duplicate key (first written at line 9, column 1); keep only one",
            ])
    }

    func testNeedsMustNameOtherLayersWithoutCycles() {
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                layers:
                  a: { plugin: shell, run: x, needs: [c] }
                  b: { plugin: shell, run: x, needs: a }
                  c: { plugin: shell, run: x, needs: [b] }
                  d: { plugin: shell, run: x, needs: [d, zz] }
                """),
            [
                "pipelines/test.yml:3:38: error: layers.b.needs: 'a' closes a cycle: a → c → b → a; remove one of "
                    + "these needs",
                "pipelines/test.yml:5:39: error: layers.d.needs[0]: a layer cannot need itself; remove 'd'",
                "pipelines/test.yml:5:42: error: layers.d.needs[1]: no layer is named 'zz'; layers: 'a', 'b' or 'c'",
            ])
    }

    func testTwoSeparateCyclesAreBothReported() {
        let errors = SpecFixtures.errors(
            """
            layers:
              a: { plugin: shell, run: x, needs: [b] }
              b: { plugin: shell, run: x, needs: [a] }
              c: { plugin: shell, run: x, needs: [d] }
              d: { plugin: shell, run: x, needs: [c] }
            """)
        XCTAssertEqual(
            errors,
            [
                "pipelines/test.yml:3:39: error: layers.b.needs[0]: 'a' closes a cycle: a → b → a; remove one of these "
                    + "needs",
                "pipelines/test.yml:5:39: error: layers.d.needs[0]: 'c' closes a cycle: c → d → c; remove one of these "
                    + "needs",
            ])
    }

    func testNeedsMayPointForwardAndFormADiamond() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            layers:
              report: { plugin: shell, run: x, needs: [left, right] }
              left: { plugin: shell, run: x, needs: [base] }
              right: { plugin: shell, run: x, needs: [base] }
              base: { plugin: shell, run: x }
            """)
        XCTAssertEqual(pipeline.layers.map(\.needs), [["left", "right"], ["base"], ["base"], []])
    }

    func testPipelineNameComesFromAFileNameUsableInPaths() {
        XCTAssertEqual(
            SpecFixtures.errors("layers: { a: { plugin: shell, run: x } }\n", file: "pipelines/my pipeline.yml"),
            [
                "pipelines/my pipeline.yml: error: 'my pipeline' cannot name a pipeline (it is used in folder names): "
                    + "rename the file with letters, digits, '.', '_' and '-'"
            ])
    }

    func testValidationOfTheBriefsUnquotedColonExplainsTheFix() {
        // The format sketch's own `description:` line holds ": " in a plain value, which YAML reads as a mapping.
        let errors = SpecFixtures.errors(
            "description: App Intents verification for the reader app (seeds: three layers)\n")
        XCTAssertEqual(
            errors,
            [
                "pipelines/test.yml:1:64: error: invalid YAML: mapping values are not allowed in this context; a ': ' "
                    + "inside a value starts a mapping: put the value in quotes\n"
                    + "description: App Intents verification for the reader app (seeds: three layers)\n"
                    + "                                                               ^"
            ])
    }

    private func errorProblems(_ yaml: String, file: String) -> [SpecProblem] {
        do {
            _ = try SpecFixtures.loader.load(yaml: yaml, file: file, parameters: [:], environment: [:])
            XCTFail("expected errors")
            return []
        } catch {
            return error.problems
        }
    }
}

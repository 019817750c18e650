import Foundation
import PipeCore
import PipeSpec
import XCTest

/// A plugin's `.record` settings and `SettingCheck`s, reported by the loader at the entry they name.
final class SettingCheckTests: XCTestCase {
    private static let loader = PipelineLoader(registry: [
        "tool": PluginSchema(settings: [
            SettingSchema(
                "words", .strings,
                check: SettingCheck("no-secret-word") { value in
                    (value.stringsValue ?? []).enumerated().compactMap { index, word in
                        word == "-secret" ? SettingProblem(.entry(index), "'-secret' is the tool's own") : nil
                    }
                }, "words"),
            SettingSchema(
                "limits", .record,
                fields: [
                    SettingField("count", .integer, "how many"),
                    SettingField("on", .boolean, "whether"),
                    SettingField("wait", .duration, "how long"),
                ],
                check: SettingCheck("count-positive") { value in
                    guard case .map(let map) = value, let count = map["count"], count == "0" else { return [] }
                    return [SettingProblem(.key("count"), "0: give 1 or more")]
                }, "limits"),
        ])
    ])

    private func errors(_ yaml: String) -> [String] {
        do {
            _ = try Self.loader.load(yaml: yaml, file: "pipelines/p.yml")
            XCTFail("expected errors")
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    func testARecordDecodesEachFieldToCanonicalText() throws {
        let pipeline = try Self.loader.load(
            yaml: "layers:\n  a:\n    plugin: tool\n    limits: { count: 4, on: false, wait: 2m }\n",
            file: "pipelines/p.yml")
        XCTAssertEqual(pipeline.layers[0].settings["limits"], .map(["count": "4", "on": "false", "wait": "120"]))
    }

    func testARecordRefusesUnknownFieldsAndWrongTypes() {
        let problems = errors("layers:\n  a:\n    plugin: tool\n    limits: { count: many, wiat: 2m, on: 3 }\n")
        XCTAssertEqual(
            problems,
            [
                "pipelines/p.yml:4:22: error: layers.a.limits.count: expected an integer, found the text 'many'",
                "pipelines/p.yml:4:28: error: layers.a.limits.wiat: unknown key; did you mean 'wait'?",
                "pipelines/p.yml:4:42: error: layers.a.limits.on: expected a boolean (true or false), found the "
                    + "integer 3",
            ])
    }

    func testACheckIsReportedAtTheEntryItNames() {
        let problems = errors(
            """
            layers:
              a:
                plugin: tool
                words:
                  - -fine
                  - -secret
                limits: { count: 0 }
            """)
        XCTAssertEqual(
            problems,
            [
                "pipelines/p.yml:6:9: error: layers.a.words[1]: '-secret' is the tool's own",
                "pipelines/p.yml:7:22: error: layers.a.limits.count: 0: give 1 or more",
            ])
    }

    func testACheckSeesTheValueAfterInterpolation() {
        let problems = errors(
            """
            parameters:
              flag: { default: -secret }
            layers:
              a:
                plugin: tool
                words: [-fine, "${flag}"]
            """)
        XCTAssertEqual(problems, ["pipelines/p.yml:6:20: error: layers.a.words[1]: '-secret' is the tool's own"])
    }
}

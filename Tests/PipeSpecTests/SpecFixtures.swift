import Foundation
import PipeCore
import PipeSpec
import XCTest

/// Shared fixtures: the plugin registry a CLI would build, and helpers to load YAML text.
enum SpecFixtures {
    /// The folder holding the fixture files.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A registry shaped like the real plugins' (`xcodebuild-test`, `checklist`, `shell`); PipeSpec must not
    /// depend on plugin modules, so its tests describe the kinds the way the CLI hands them over.
    static let registry: [String: PluginSchema] = [
        "xcodebuild-test": PluginSchema(
            settings: [
                SettingSchema("scheme", .string, required: true, "the shared scheme to test"),
                SettingSchema("project", .string, "the .xcodeproj, relative to the workspace"),
                SettingSchema("workspace", .string, "the .xcworkspace, relative to the workspace"),
                SettingSchema("only-testing", .strings, "test identifiers to run"),
                SettingSchema("skip-testing", .strings, "test identifiers to skip"),
                SettingSchema("configuration", .string, "Debug or Release"),
                SettingSchema("parallel", .boolean, "run test classes in parallel"),
                SettingSchema("retries", .integer, "attempts after a test failure"),
                SettingSchema("environment", .map, "environment for the test process"),
            ], defaultGate: .merge),
        "checklist": PluginSchema(
            settings: [
                SettingSchema("items", .strings, required: true, "what a person checks"),
                SettingSchema("fields", .strings, "fields every sign-off must give"),
            ], defaultGate: .release),
        "shell": PluginSchema(
            settings: [SettingSchema("run", .string, required: true, shellCommand: true, "the command")],
            defaultGate: .merge),
    ]

    static let loader = PipelineLoader(registry: registry)

    /// The problems of a pipeline given as text, rendered one per line.
    static func errors(
        _ yaml: String, file: String = "pipelines/test.yml", parameters: [String: String] = [:],
        environment: [String: String] = [:], file callerFile: StaticString = #filePath, line: UInt = #line
    ) -> [String] {
        do {
            let pipeline = try loader.load(yaml: yaml, file: file, parameters: parameters, environment: environment)
            XCTFail("expected errors, loaded \(pipeline.name)", file: callerFile, line: line)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    /// A pipeline given as text that must load.
    static func pipeline(
        _ yaml: String, file: String = "pipelines/test.yml", parameters: [String: String] = [:],
        environment: [String: String] = [:]
    ) throws -> Pipeline {
        try loader.load(yaml: yaml, file: file, parameters: parameters, environment: environment)
    }
}

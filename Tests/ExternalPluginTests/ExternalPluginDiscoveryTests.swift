import ExternalPlugin
import Foundation
import PipeCore
import PipeTestSupport
import XCTest

/// Finding plugins in the project's Plugins/ folder and on PATH, and asking them to describe themselves.
final class ExternalPluginDiscoveryTests: XCTestCase {
    private var project: PluginProject!
    private var pathFolder: TemporaryDirectory!

    override func setUpWithError() throws {
        project = try PluginProject()
        pathFolder = try TemporaryDirectory(prefix: "pipe-ext-path")
    }

    override func tearDown() {
        pathFolder.remove()
        project = nil
    }

    private func put(_ fixture: String, as kind: String, in folder: URL) throws {
        let destination = folder.appendingPathComponent("pipe-layer-\(kind)")
        try FileManager.default.copyItem(at: PluginProject.fixtures.appendingPathComponent(fixture), to: destination)
        XCTAssertEqual(chmod(destination.path, 0o755), 0)
    }

    func testTheProjectsPluginsFolderWinsOverPath() throws {
        try project.install("greeter", as: "lint")
        try put("crasher", as: "lint", in: pathFolder.url)
        try put("crasher", as: "other", in: pathFolder.url)
        let path = "/usr/bin:\(pathFolder.url.path)"
        XCTAssertEqual(
            ExternalPluginDiscovery.find(kind: "lint", projectDirectory: project.url, path: path)?.path,
            project.url.appendingPathComponent("Plugins/pipe-layer-lint").path)
        XCTAssertEqual(
            ExternalPluginDiscovery.find(kind: "other", projectDirectory: project.url, path: path)?.path,
            pathFolder.url.appendingPathComponent("pipe-layer-other").path)
        let all = ExternalPluginDiscovery.all(projectDirectory: project.url, path: path)
        XCTAssertEqual(all.keys.sorted(), ["lint", "other"])
        XCTAssertEqual(all["lint"]?.path, project.url.appendingPathComponent("Plugins/pipe-layer-lint").path)
    }

    func testRelativePathEntriesAndNonExecutablesAreNeverUsed() throws {
        // A relative PATH entry would let the folder pipe runs in (or a checkout) supply a plugin.
        let relative = project.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: relative, withIntermediateDirectories: true)
        try put("greeter", as: "sneaky", in: relative)
        XCTAssertNil(ExternalPluginDiscovery.find(kind: "sneaky", projectDirectory: project.url, path: "bin:."))
        try project.install("greeter", as: "plain")
        XCTAssertEqual(chmod(project.url.appendingPathComponent("Plugins/pipe-layer-plain").path, 0o644), 0)
        XCTAssertNil(ExternalPluginDiscovery.find(kind: "plain", projectDirectory: project.url, path: nil))
        XCTAssertNil(ExternalPluginDiscovery.find(kind: "../Plugins/x", projectDirectory: project.url, path: nil))
    }

    func testNotFoundListsWhereItLooked() {
        XCTAssertThrowsError(
            try ExternalPluginDiscovery.locate(kind: "lint", projectDirectory: project.url, path: "/opt/bin:rel")
        ) { error in
            XCTAssertEqual(
                "\(error)",
                "no external plugin for kind 'lint': no executable pipe-layer-lint in \(project.url.path)/Plugins, "
                    + "/opt/bin; put one in the project's Plugins/ folder (see docs/plugins.md) or fix the layer's "
                    + "`plugin:`")
        }
    }

    func testAPluginThatMisbehavesOnlyWhenRunStillDescribesItself() throws {
        try project.install("crasher", as: "crash")
        let description = try ExternalPluginDiscovery.describe(
            project.url.appendingPathComponent("Plugins/pipe-layer-crash"), kind: "crash")
        XCTAssertEqual(description.settings, [])
    }

    func testDescribeGivesTheSettingsAndGate() throws {
        try project.install("greeter", as: "hello")
        let description = try ExternalPluginDiscovery.describe(
            project.url.appendingPathComponent("Plugins/pipe-layer-hello"), kind: "hello")
        XCTAssertEqual(description.kind, "hello")
        XCTAssertEqual(description.defaultGate, .merge)
        XCTAssertEqual(
            description.settings,
            [
                SettingSchema("greeting", .string, required: true, "what to say"),
                SettingSchema("times", .integer, "how often"),
            ])
    }

    func testTheShippedExampleDescribesItself() throws {
        let description = try ExternalPluginDiscovery.describe(
            RepositoryPaths.root.appendingPathComponent("Plugins/examples/pipe-layer-source-lint"), kind: "source-lint")
        XCTAssertEqual(description.settings.map(\.key), ["paths", "forbid", "max-line-length", "ask-host"])
    }

    func testADescriptionThatFailsSaysHow() throws {
        try project.install("mute", as: "quiet")
        XCTAssertThrowsError(
            try ExternalPluginDiscovery.describe(
                project.url.appendingPathComponent("Plugins/pipe-layer-quiet"), kind: "quiet")
        ) { error in
            XCTAssertTrue("\(error)".contains("--describe: the description is not one JSON object"), "\(error)")
        }
        try project.install("sulker", as: "grumble")
        XCTAssertThrowsError(
            try ExternalPluginDiscovery.describe(
                project.url.appendingPathComponent("Plugins/pipe-layer-grumble"), kind: "grumble")
        ) { error in
            XCTAssertTrue("\(error)".contains("--describe: exited 1"), "\(error)")
        }
        try project.install("future", as: "future")
        XCTAssertThrowsError(
            try ExternalPluginDiscovery.describe(
                project.url.appendingPathComponent("Plugins/pipe-layer-future"), kind: "future")
        ) { error in
            XCTAssertTrue("\(error)".contains("speaks protocol 3, this Pipe speaks 1 and 2"), "\(error)")
        }
    }

    func testDescriptionsAreCheckedStrictly() {
        func problem(_ json: String, kind: String = "lint") -> String {
            do {
                _ = try ExternalPluginDescription.parse(Data(json.utf8), expectedKind: kind)
                return "accepted"
            } catch {
                return error.message
            }
        }
        XCTAssertEqual(
            problem(#"{"protocol":1,"kind":"other"}"#),
            #"the description's "kind" is "other", but the executable is named for 'lint'"#)
        XCTAssertEqual(
            problem(#"{"protocol":1,"kind":"lint","settings":[{"key":"x","type":"float"}]}"#),
            #"setting x: "type" must be one of boolean, integer, map, string, strings"#)
        XCTAssertEqual(
            problem(#"{"protocol":1,"kind":"lint","settings":[{"key":"timeout","type":"string"}]}"#),
            "setting timeout: the name is taken by every layer")
        XCTAssertEqual(
            problem(#"{"protocol":1,"kind":"lint","gate":"nightly"}"#), #""gate" must be "merge" or "release""#)
        XCTAssertEqual(problem(#"{"kind":"lint"}"#), #"the description has no "protocol" number"#)
        XCTAssertEqual(problem(#"{"protocol":1,"kind":"lint","gate":"release"}"#), "accepted")
        XCTAssertEqual(
            problem(#"{"protocol":1,"kind":"lint","settings":[{"key":"n","type":"integer","shell":true}]}"#),
            #"setting n: "shell" must be true or false, and true only for a string or strings"#)
        XCTAssertEqual(
            problem(#"{"protocol":1,"kind":"lint","settings":[{"key":"s","type":"string","shell":"yes"}]}"#),
            #"setting s: "shell" must be true or false, and true only for a string or strings"#)
    }

    func testASettingCanSayItIsAShellCommand() throws {
        let description = try ExternalPluginDescription.parse(
            Data(#"{"protocol":1,"kind":"lint","settings":[{"key":"script","type":"string","shell":true},"#.utf8)
                + Data(#"{"key":"paths","type":"strings"}]}"#.utf8), expectedKind: "lint")
        XCTAssertEqual(description.settings.map(\.isShellCommand), [true, false])
    }
}

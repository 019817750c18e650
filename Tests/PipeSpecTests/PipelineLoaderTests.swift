import Foundation
import PipeCore
import PipeSpec
import XCTest

final class PipelineLoaderTests: XCTestCase {
    private let fixture = SpecFixtures.folder.appendingPathComponent("pipelines/app-intents.yml")

    func testFullPipelineLoadsIntoTheModel() throws {
        let pipeline = try SpecFixtures.loader.load(path: fixture, parameters: ["ref": "main"], environment: [:])

        XCTAssertEqual(pipeline.name, "app-intents")
        XCTAssertEqual(pipeline.sourcePath, fixture.relativePath)
        XCTAssertEqual(pipeline.description, "App Intents verification for the reader app (seeds: three layers)")
        XCTAssertEqual(
            pipeline.repository, RepositorySpec(location: nil, ref: "main", workspacePath: "examples/reader-app"))
        XCTAssertEqual(pipeline.hostSelection, HostSelection(names: [], labels: ["xcode": "16.2", "arch": "arm64"]))
        XCTAssertEqual(
            pipeline.simulator, SimulatorCriteria(platform: "iOS", deviceName: "iPhone 15", runtime: "iOS 17.5"))
        XCTAssertEqual(pipeline.parameters, ["scheme": "Reader", "ref": "main", "configuration": "Debug"])
        XCTAssertEqual(pipeline.flakyPolicy, .block)
        XCTAssertEqual(pipeline.layers.map(\.name), ["logic", "intent", "manual"])

        XCTAssertEqual(
            pipeline.layers[0],
            LayerSpec(
                name: "logic", plugin: "xcodebuild-test", gate: .merge, needs: [], timeoutSeconds: 600,
                settings: [
                    "scheme": .string("Reader"), "configuration": .string("Debug"),
                    "only-testing": .strings(["ReaderTests/ReadingIDTests"]),
                ]))
        XCTAssertEqual(
            pipeline.layers[1],
            LayerSpec(
                name: "intent", plugin: "xcodebuild-test", gate: .merge, needs: ["logic"], timeoutSeconds: 90,
                settings: [
                    "scheme": .string("Reader"),
                    "only-testing": .strings([
                        "ReaderTests/CheckReadingIDIntentTests", "ReaderTests/ReadingShortcutsTests",
                    ]),
                    "parallel": .boolean(false), "retries": .integer(1),
                    "environment": .map(["READER_LOG": "1", "CI_RUNNER": "${RUNNER_NAME}"]),
                ]))
        let manual = try XCTUnwrap(pipeline.layer(named: "manual"))
        XCTAssertEqual(manual.gate, .release, "a checklist layer takes its plugin's default gate")
        XCTAssertEqual(manual.needs, ["logic", "intent"])
        XCTAssertNil(manual.timeoutSeconds)
        XCTAssertEqual(manual.settings["fields"]?.stringsValue?.count, 5)
    }

    func testCommandLineParametersOverrideDefaults() throws {
        let pipeline = try SpecFixtures.loader.load(
            path: fixture, parameters: ["ref": "release/2.0", "scheme": "Reader Tests"], environment: [:])

        XCTAssertEqual(pipeline.repository.ref, "release/2.0")
        XCTAssertEqual(pipeline.layers[0].settings["scheme"], .string("Reader Tests"))
        XCTAssertEqual(pipeline.parameters["scheme"], "Reader Tests")
    }

    func testMinimalPipelineTakesTheDefaults() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            layers:
              logic: { plugin: xcodebuild-test, scheme: Reader }
            """)

        XCTAssertEqual(pipeline.name, "test")
        XCTAssertNil(pipeline.description)
        XCTAssertEqual(pipeline.repository, RepositorySpec(location: nil, ref: "HEAD", workspacePath: "."))
        XCTAssertEqual(pipeline.hostSelection, HostSelection())
        XCTAssertEqual(pipeline.simulator, SimulatorCriteria(platform: "iOS"))
        XCTAssertEqual(pipeline.parameters, [:])
        XCTAssertEqual(pipeline.flakyPolicy, .allow)
        XCTAssertEqual(
            pipeline.layers,
            [LayerSpec(name: "logic", plugin: "xcodebuild-test", settings: ["scheme": .string("Reader")])])
    }

    func testRepositoryHostAndSimulatorForms() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            repository: { url: ../other/repo.git, ref: v1.2, workspace: ./app }
            host: mac-2
            simulator: { udid: 90052AC6-4B8A-4C1B-9E7A-3F1D2B8C4E51, platform: tvOS }
            layers:
              logic: { plugin: xcodebuild-test, scheme: Reader, gate: release }
            """, file: "pipelines/other.yaml")

        XCTAssertEqual(pipeline.name, "other")
        XCTAssertEqual(
            pipeline.repository, RepositorySpec(location: "../other/repo.git", ref: "v1.2", workspacePath: "./app"))
        XCTAssertEqual(pipeline.hostSelection.names, ["mac-2"])
        XCTAssertEqual(pipeline.simulator.udid, "90052AC6-4B8A-4C1B-9E7A-3F1D2B8C4E51")
        XCTAssertEqual(pipeline.simulator.platform, "tvOS")
        XCTAssertEqual(pipeline.layers[0].gate, .release)

        let named = try SpecFixtures.pipeline(
            """
            host: { names: [mac-1, mac-2], labels: { xcode: 16.2 } }
            simulator: { runtime: 17.5 }
            layers: { logic: { plugin: shell, run: make test } }
            """)
        XCTAssertEqual(named.hostSelection, HostSelection(names: ["mac-1", "mac-2"], labels: ["xcode": "16.2"]))
        XCTAssertEqual(named.simulator.runtime, "17.5")
    }

    func testSimulatorCreateIsReadAndNeedsADevice() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            simulator: { device: iPhone 15 Plus, runtime: 17.5, create: true }
            layers: { logic: { plugin: shell, run: make test } }
            """)
        XCTAssertEqual(
            pipeline.simulator,
            SimulatorCriteria(platform: "iOS", deviceName: "iPhone 15 Plus", runtime: "17.5", create: true))
        XCTAssertThrowsError(
            try SpecFixtures.pipeline(
                """
                simulator: { runtime: 17.5, create: true }
                layers: { logic: { plugin: shell, run: make test } }
                """)
        ) { error in
            XCTAssertTrue("\(error)".contains("'create: true' needs 'device'"), "\(error)")
        }
    }

    func testMissingFileIsOneProblemWithoutPosition() {
        let missing = SpecFixtures.folder.appendingPathComponent("pipelines/nope.yml")
        XCTAssertThrowsError(try SpecFixtures.loader.load(path: missing)) { error in
            let problems = (error as? SpecErrors)?.problems ?? []
            XCTAssertEqual(
                problems.map(\.description), ["\(missing.relativePath): error: no such file; check the path"])
        }
    }

    func testEmptyFileAndNonMappingRoot() {
        XCTAssertEqual(
            SpecFixtures.errors("# nothing here\n"),
            ["pipelines/test.yml:1:1: error: the file is empty; a pipeline needs at least 'layers:'"])
        XCTAssertEqual(
            SpecFixtures.errors("- logic\n- intent\n"),
            ["pipelines/test.yml:1:1: error: expected a mapping of pipeline keys, found a list"])
    }
}

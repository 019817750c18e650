import Foundation
import PipeTestSupport
import XCTest

/// A `--param` value reaches a `shell` layer's command on the emulated Mac as data: printed back unchanged, running
/// nothing it spells; a reference written where it would not be one word is refused by `pipe validate`.
final class ShellParameterEndToEndTests: EmulatedHostTestCase {
    private let pipeline = """
        repository:
          workspace: examples/reader-app
        parameters:
          folder: { required: true }
        layers:
          size:
            plugin: shell
            command: printf %s ${folder}
        """

    override func setUpWithError() throws {
        try super.setUpWithError()
        try? FileManager.default.removeItem(atPath: InjectionCorpus.witnessFile)
    }

    func testAHostileParameterIsPrintedBackAndRunsNothing() throws {
        let project = try makeProject(pipeline: pipeline)
        for value in [".;id>/tmp/pipe-injected", "a\nid>/tmp/pipe-injected\n", "'\"$(id>/tmp/pipe-injected)`id`"] {
            let run = try project.pipe(["run", "app-intents", "--param", "folder=\(value)"])
            XCTAssertEqual(run.exitCode, 0, run.combined)
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile),
                "the host ran a command from \(value.debugDescription)")
            let folder = try XCTUnwrap(project.runFolders().last)
            let log = try Data(contentsOf: folder.appendingPathComponent("size/shell.log"))
            XCTAssertEqual(log, Data(value.utf8), "the command printed something else for \(value.debugDescription)")
            let record = try project.lastRecord()
            let attempts = try XCTUnwrap(layer("size", in: record)?["attempts"] as? [[String: Any]])
            let facts = try XCTUnwrap(attempts.last?["facts"] as? [String: String])
            XCTAssertEqual(facts["command"], "printf %s \"$PIPE_PARAM_folder\"", "the record shows no value")
        }
    }

    func testAQuotedReferenceIsRefusedWithItsPositionAndTheFix() throws {
        let project = try makeProject(
            pipeline: pipeline.replacingOccurrences(
                of: "command: printf %s ${folder}", with: "command: grep '${folder}' Package.swift"))
        let check = try project.pipe(["validate", "pipelines/app-intents.yml"])
        XCTAssertEqual(check.exitCode, 2, check.combined)
        XCTAssertTrue(
            check.combined.contains(
                "pipelines/app-intents.yml:8:20: error: layers.size.command: '${folder}' is inside single quotes"),
            check.combined)
        XCTAssertTrue(check.combined.contains("close the quotes before it and reopen them after"), check.combined)
    }
}

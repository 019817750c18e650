import Foundation
import PipeTestSupport
import XCTest

/// `pipe signoff` from the built binary: refusals record nothing, sign-offs are appended and the latest decides,
/// and who signed comes from --by, the project's git user.email, or the login name.
final class SignoffEndToEndTests: GateTestCase {
    private func runAppIntents() throws -> PipeProject {
        let project = try appIntentsProject()
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(run.exitCode, 0, run.combined)
        return project
    }

    private func storedRun(_ project: PipeProject) throws -> [String: Any] {
        let show = try project.pipe(["runs", "show", "last", "--json"])
        XCTAssertEqual(show.exitCode, 0, show.combined)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
    }

    func testARefusedSignoffExitsTwoListsEveryProblemAndRecordsNothing() throws {
        let project = try runAppIntents()
        let summaryBefore = try Data(contentsOf: try lastRunFolder(project).appendingPathComponent("summary.json"))
        let refused = try project.pipe([
            "signoff", "last", "shortcuts", "--result", "fail", "--field", "os-version=17.5", "--note", "not listed",
        ])
        XCTAssertEqual(refused.exitCode, 2, refused.combined)
        XCTAssertEqual(refused.stdout, "")
        for expected in [
            "sign-off of shortcuts refused, nothing recorded:",
            "layer shortcuts asks for no field 'os-version' (did you mean os_version?)",
            "missing os_version, app_build: every sign-off of shortcuts must give --field os_version=… --field app_build=…",
            "missing steps: a fail sign-off of shortcuts must also give --field steps=…",
        ] {
            XCTAssertTrue(refused.stderr.contains(expected), "missing \(expected) in:\n\(refused.stderr)")
        }
        let stored = try storedRun(project)
        XCTAssertEqual((stored["signoffs"] as? [Any])?.count, 0, "nothing was recorded")
        XCTAssertEqual(layer("shortcuts", in: stored)?["outcome"] as? String, "awaiting-signoff")
        XCTAssertEqual(
            try Data(contentsOf: try lastRunFolder(project).appendingPathComponent("summary.json")), summaryBefore,
            "summary.json untouched")
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: try lastRunFolder(project).appendingPathComponent("shortcuts/signoffs.json").path))
    }

    func testAutomatedLayersAndUnknownLayersCannotBeSigned() throws {
        let project = try runAppIntents()
        let automated = try project.pipe(["signoff", "last", "logic", "--result", "pass"])
        XCTAssertEqual(automated.exitCode, 2, automated.combined)
        XCTAssertTrue(
            automated.stderr.contains("layer logic is an automated layer (xcodebuild-test, passed)"), automated.stderr)
        let unknown = try project.pipe(["signoff", "last", "shortcut", "--result", "pass"])
        XCTAssertEqual(unknown.exitCode, 2, unknown.combined)
        XCTAssertTrue(unknown.stderr.contains("has no layer 'shortcut'; did you mean 'shortcuts'?"), unknown.stderr)
        let badResult = try project.pipe(["signoff", "last", "shortcuts", "--result", "ok"])
        XCTAssertEqual(badResult.exitCode, 2, badResult.combined)
        XCTAssertTrue(badResult.stderr.contains("expected pass or fail"), badResult.stderr)
        XCTAssertEqual((try storedRun(project)["signoffs"] as? [Any])?.count, 0)
    }

    func testALaterSignoffSupersedesAnEarlierOneAndBothStayVisible() throws {
        let project = try runAppIntents()
        let fail = try project.pipe([
            "signoff", "last", "shortcuts", "--result", "fail", "--field", "os_version=17.5", "--field",
            "app_build=42", "--field", "steps=install; launch once; open Shortcuts; search: not listed", "--by", "bob",
        ])
        XCTAssertEqual(fail.exitCode, 0, fail.combined)
        XCTAssertTrue(fail.stdout.contains("release gate (with merge) failed: shortcuts"), fail.stdout)
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "release"]).exitCode, 1)

        let pass = try project.pipe([
            "signoff", "last", "shortcuts", "--result", "pass", "--field", "os_version=17.5", "--field",
            "app_build=43", "--note", "listed after the intent was added to the app target", "--by", "alice",
        ])
        XCTAssertEqual(pass.exitCode, 0, pass.combined)
        XCTAssertTrue(pass.stdout.contains("supersedes #"), pass.stdout)
        XCTAssertTrue(pass.stdout.contains("rejected by bob"), pass.stdout)
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "release"]).exitCode, 0)

        let signoffs = try XCTUnwrap(try storedRun(project)["signoffs"] as? [[String: Any]])
        XCTAssertEqual(signoffs.map { $0["decision"] as? String }, ["rejected", "signed-off"])
        XCTAssertEqual(signoffs.map { $0["signedBy"] as? String }, ["bob", "alice"])
        let text = try project.pipe(["runs", "show", "last"])
        XCTAssertTrue(text.stdout.contains("shortcuts: rejected by bob"), text.stdout)
        XCTAssertTrue(text.stdout.contains("shortcuts: signed-off by alice"), text.stdout)

        let file = try jsonObject(try lastRunFolder(project).appendingPathComponent("shortcuts/signoffs.json"))
        let entries = try XCTUnwrap(file["signoffs"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(
            (entries[0]["fields"] as? [String: String])?["steps"],
            "install; launch once; open Shortcuts; search: not listed")
        XCTAssertEqual(entries.map { $0["current"] as? Bool }, [false, true])
        XCTAssertEqual(entries[1]["note"] as? String, "listed after the intent was added to the app target")
        let artifacts = try XCTUnwrap(
            ((layer("shortcuts", in: try project.lastRecord())?["attempts"] as? [[String: Any]])?.last?["artifacts"])
                as? [[String: Any]])
        XCTAssertTrue(
            artifacts.contains { ($0["path"] as? String)?.hasSuffix("shortcuts/signoffs.json") == true },
            "signoffs.json is a recorded artifact: \(artifacts)")
    }

    func testTheSignerIsByElseTheProjectsGitEmailElseTheLoginName() throws {
        let project = try runAppIntents()
        let fields = ["--field", "os_version=17.5", "--field", "app_build=42"]
        // No user.email anywhere: an empty home, so no ~/.gitconfig either.
        let home = try TemporaryDirectory(prefix: "pipe-home")
        defer { home.remove() }
        let noGit = ["HOME": home.url.path, "XDG_CONFIG_HOME": home.url.path, "USER": "dana", "LOGNAME": "dana"]
        XCTAssertEqual(
            try project.pipe(["signoff", "last", "shortcuts", "--result", "pass"] + fields, environment: noGit)
                .exitCode, 0)
        try project.shell("git config user.email tester@pipe.test")
        XCTAssertEqual(
            try project.pipe(["signoff", "last", "shortcuts", "--result", "pass"] + fields, environment: noGit)
                .exitCode, 0)
        XCTAssertEqual(
            try project.pipe(["signoff", "last", "shortcuts", "--result", "pass", "--by", "carol"] + fields).exitCode, 0
        )
        let signoffs = try XCTUnwrap(try storedRun(project)["signoffs"] as? [[String: Any]])
        XCTAssertEqual(signoffs.map { $0["signedBy"] as? String }, ["dana", "tester@pipe.test", "carol"])
    }
}

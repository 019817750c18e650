import Foundation
import PipeTestSupport
import XCTest

/// `pipe gate` over runs of both seed pipelines, from the built `pipe` against an emulated Mac host (canned mode):
/// the merge gate passing and failing, the release gate pending on its checklist, then passing once signed.
final class GateEndToEndTests: GateTestCase {
    func testAppIntentsMergePassesReleaseIsPendingThenPassesAfterASignoff() throws {
        let project = try appIntentsProject()
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(run.exitCode, 0, "a pending checklist does not fail `pipe run`:\n\(run.combined)")
        XCTAssertTrue(run.stdout.contains("shortcuts"), run.stdout)

        let merge = try project.pipe(["gate", "last", "--for", "merge"])
        XCTAssertEqual(merge.exitCode, 0, merge.combined)
        XCTAssertTrue(merge.stdout.contains("merge gate passed"), merge.stdout)
        XCTAssertFalse(merge.stdout.contains("shortcuts"), "the merge gate does not judge the checklist")

        let pending = try project.pipe(["gate", "last", "--for", "release"])
        XCTAssertEqual(pending.exitCode, 4, pending.combined)
        XCTAssertTrue(pending.stdout.contains("release gate (with merge) pending sign-off: shortcuts"), pending.stdout)
        XCTAssertTrue(pending.stdout.contains("✓ logic"), pending.stdout)

        // The checklist says where to check and how to sign.
        let folder = try lastRunFolder(project)
        let checklist = try jsonObject(folder.appendingPathComponent("shortcuts/checklist.json"))
        XCTAssertEqual(checklist["host"] as? String, "mac-1")
        let chosen = try XCTUnwrap(
            (try project.lastRecord()["simulator"] as? [String: Any])?["simulator"] as? [String: Any])
        XCTAssertEqual((checklist["simulator"] as? [String: Any])?["udid"] as? String, chosen["udid"] as? String)
        XCTAssertEqual((checklist["simulator"] as? [String: Any])?["name"] as? String, "iPhone 15")
        XCTAssertEqual(
            (checklist["simulator"] as? [String: Any])?["runtime"] as? String, chosen["runtimeName"] as? String)
        XCTAssertEqual(checklist["fields"] as? [String], ["os_version", "app_build"])
        XCTAssertEqual(checklist["fieldsOnFail"] as? [String], ["steps"])
        XCTAssertEqual((checklist["items"] as? [String])?.count, 6)
        let markdown = try String(contentsOf: folder.appendingPathComponent("shortcuts/checklist.md"), encoding: .utf8)
        let runID = folder.lastPathComponent
        XCTAssertTrue(
            markdown.contains("pipe signoff \(runID) shortcuts --result pass --field 'os_version=<os_version>'"),
            markdown)

        let signoff = try project.pipe([
            "signoff", "last", "shortcuts", "--result", "pass", "--field", "os_version=17.5", "--field",
            "app_build=1.0 (42)", "--note", "found in Shortcuts; both IDs read well", "--by", "qa@pipe.test",
        ])
        XCTAssertEqual(signoff.exitCode, 0, signoff.combined)
        XCTAssertTrue(signoff.stdout.contains("shortcuts signed-off by qa@pipe.test"), signoff.stdout)

        let passed = try project.pipe(["gate", "last", "--for", "release", "--json"])
        XCTAssertEqual(passed.exitCode, 0, passed.combined)
        let verdict = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(passed.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(verdict["verdict"] as? String, "passed")
        XCTAssertEqual(verdict["gates"] as? [String], ["merge", "release"])
        let layers = try XCTUnwrap(verdict["layers"] as? [[String: Any]])
        XCTAssertEqual(layers.map { $0["outcome"] as? String }, ["passed", "passed", "signed-off"])

        // summary.json was rewritten from the store: the checklist is signed, with who and the fields.
        let record = try project.lastRecord()
        let shortcuts = try XCTUnwrap(layer("shortcuts", in: record))
        XCTAssertEqual(shortcuts["outcome"] as? String, "signed-off")
        let evidence = (shortcuts["evidence"] as? [String] ?? []).joined()
        XCTAssertTrue(evidence.contains("signed-off by qa@pipe.test"), evidence)
        XCTAssertTrue(evidence.contains("os_version=17.5"), evidence)
        XCTAssertTrue(evidence.contains("app_build=1.0 (42)"), evidence)
    }

    func testAppIntentsMergeGateFailsOnAFailedRuleTestAndTheChecklistIsSkipped() throws {
        let project = try appIntentsProject()
        try failCannedTest(
            "testRejectsInnerSpace", scheme: "Reader", workspace: "examples/reader-app", in: project)
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(run.exitCode, 1, run.combined)
        let merge = try project.pipe(["gate", "last", "--for", "merge"])
        XCTAssertEqual(merge.exitCode, 1, merge.combined)
        XCTAssertTrue(merge.stdout.contains("merge gate failed: logic"), merge.stdout)
        XCTAssertTrue(merge.stdout.contains("✗ logic"), merge.stdout)
        let release = try project.pipe(["gate", "last", "--for", "release"])
        XCTAssertEqual(release.exitCode, 1, "a failed merge layer fails the release gate too:\n\(release.combined)")
        XCTAssertEqual(layer("shortcuts", in: try project.lastRecord())?["outcome"] as? String, "skipped")
        // Nothing to sign: the checklist was never prepared.
        let signoff = try project.pipe([
            "signoff", "last", "shortcuts", "--result", "pass", "--field", "os_version=17.5", "--field", "app_build=42",
        ])
        XCTAssertEqual(signoff.exitCode, 2, signoff.combined)
        XCTAssertTrue(signoff.stderr.contains("was not prepared for sign-off"), signoff.stderr)
    }

    func testHapticsMergePassesReleaseWaitsForTheDeviceChecklistThenPasses() throws {
        let project = try hapticsProject()
        let run = try project.pipe(["run", "haptics"])
        XCTAssertEqual(run.exitCode, 0, run.combined)
        XCTAssertTrue(run.stdout.contains("ConfirmationEventsTests/testConfirmationIsOneImmediateEvent"), run.stdout)
        XCTAssertTrue(run.stdout.contains("SaveHapticsTests/testRapidRepeatedTapsPlayNoExtra"), run.stdout)
        let record = try project.lastRecord()
        XCTAssertEqual(record["pipeline"] as? String, "haptics")
        XCTAssertEqual(layer("event-spec", in: record)?["outcome"] as? String, "passed")
        XCTAssertEqual(
            (layer("event-spec", in: record)?["tests"] as? [Any])?.count, 4, "only-testing kept to the suite")
        XCTAssertEqual((layer("trigger-timing", in: record)?["tests"] as? [Any])?.count, 7)
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "merge"]).exitCode, 0)

        let pending = try project.pipe(["gate", "last", "--for", "release"])
        XCTAssertEqual(pending.exitCode, 4, pending.combined)
        XCTAssertTrue(pending.stdout.contains("pending sign-off: device"), pending.stdout)
        let checklist = try jsonObject(try lastRunFolder(project).appendingPathComponent("device/checklist.json"))
        XCTAssertEqual(checklist["on"] as? String, "device")
        XCTAssertNil(checklist["simulator"] as? [String: Any], "a device checklist names no simulator")
        XCTAssertEqual(checklist["fields"] as? [String], ["device", "os_version", "observations"])

        let missing = try project.pipe([
            "signoff", "last", "device", "--result", "pass", "--field", "device=iPhone 15 Pro", "--field",
            "os_version=18.2",
        ])
        XCTAssertEqual(missing.exitCode, 2, missing.combined)
        XCTAssertTrue(missing.stderr.contains("missing observations"), missing.stderr)
        XCTAssertEqual(
            try project.pipe(["gate", "last", "--for", "release"]).exitCode, 4, "the refusal changed nothing")

        let signed = try project.pipe([
            "signoff", "last", "device", "--result", "pass", "--field", "device=iPhone 15 Pro", "--field",
            "os_version=18.2", "--field", "observations=one crisp tap as the saved label appears; rapid taps: one",
        ])
        XCTAssertEqual(signed.exitCode, 0, signed.combined)
        XCTAssertTrue(signed.stdout.contains("release gate (with merge) passed"), signed.stdout)
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "release"]).exitCode, 0)
    }

    func testHapticsMergeGateFailsWhenATimingTestFails() throws {
        let project = try hapticsProject()
        try failCannedTest(
            "testFailurePlaysNothingAndShowsTheError", scheme: "Haptics", workspace: "examples/haptics-app",
            in: project)
        let run = try project.pipe(["run", "haptics"])
        XCTAssertEqual(run.exitCode, 1, run.combined)
        let merge = try project.pipe(["gate", "last", "--for", "merge"])
        XCTAssertEqual(merge.exitCode, 1, merge.combined)
        XCTAssertTrue(merge.stdout.contains("merge gate failed: trigger-timing"), merge.stdout)
        XCTAssertTrue(merge.stdout.contains("✓ event-spec"), "the independent layer still passed:\n\(merge.stdout)")
    }

    func testGateNeedsToBeToldWhichGate() throws {
        let project = try appIntentsProject()
        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0)
        let missing = try project.pipe(["gate", "last"])
        XCTAssertEqual(missing.exitCode, 2, missing.combined)
        XCTAssertTrue(missing.stderr.contains("--for is required"), missing.stderr)
        let wrong = try project.pipe(["gate", "last", "--for", "nightly"])
        XCTAssertEqual(wrong.exitCode, 2, wrong.combined)
        XCTAssertTrue(wrong.stderr.contains("expected merge or release"), wrong.stderr)
    }

    func testTheChecklistInstallsAndLaunchesTheAppOnTheChosenSimulator() throws {
        let project = try appIntentsProject()
        let app = project.url.appendingPathComponent("examples/reader-app/build/Reader.app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>com.example.reader</string>
        <key>CFBundleShortVersionString</key><string>1.0</string>
        </dict></plist>
        """.write(to: app.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        try project.shell("git add -A && git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -m 'a built app'")

        let run = try project.pipe([
            "run", "app-intents", "--param", "app=build/Reader.app", "--param", "bundle-id=com.example.reader",
        ])
        XCTAssertEqual(run.exitCode, 0, run.combined)
        let checklist = try jsonObject(try lastRunFolder(project).appendingPathComponent("shortcuts/checklist.json"))
        XCTAssertTrue(
            (checklist["installed"] as? String)?.hasSuffix("/tree/build/Reader.app") == true,
            "the run's workspace is its build cache's tree: \(checklist)")
        let launched = try XCTUnwrap(checklist["launched"] as? [String: Any])
        XCTAssertEqual(launched["bundleID"] as? String, "com.example.reader")
        XCTAssertNotNil(Int(launched["processID"] as? String ?? ""), "simctl launch's pid is recorded: \(launched)")
        XCTAssertEqual(layer("shortcuts", in: try project.lastRecord())?["outcome"] as? String, "awaiting-signoff")
    }

    func testAnAppThatCannotBeInstalledLeavesTheChecklistUnjudged() throws {
        let project = try appIntentsProject()
        let run = try project.pipe([
            "run", "app-intents", "--param", "app=build/Missing.app", "--param", "bundle-id=com.example.reader",
        ])
        XCTAssertEqual(run.exitCode, 0, "the release checklist does not decide `pipe run`:\n\(run.combined)")
        let shortcuts = try XCTUnwrap(layer("shortcuts", in: try project.lastRecord()))
        XCTAssertEqual(shortcuts["outcome"] as? String, "host-config")
        let evidence = (shortcuts["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(evidence.contains("could not install build/Missing.app"), evidence)
        XCTAssertTrue(evidence.contains("An application bundle was not found"), evidence)
        let release = try project.pipe(["gate", "last", "--for", "release"])
        XCTAssertEqual(release.exitCode, 3, release.combined)
    }

    func testAShellLayersExitCodeIsItsVerdict() throws {
        let pipeline = """
            repository:
              workspace: examples/reader-app
            simulator:
              device: iPhone 15
            layers:
              manifest:
                plugin: shell
                command: test -f Package.swift && echo "manifest found in $(pwd)"
              budget:
                plugin: shell
                command: echo "3 files over budget" >&2; exit 3
              tool:
                plugin: shell
                command: swiftlint --strict
            """
        let project = try PipeProject(host: host, pipeline: pipeline)
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(run.exitCode, 1, "a failed check is a failure of the app:\n\(run.combined)")
        let record = try project.lastRecord()
        XCTAssertEqual(layer("manifest", in: record)?["outcome"] as? String, "passed")
        let budget = try XCTUnwrap(layer("budget", in: record))
        XCTAssertEqual(budget["outcome"] as? String, "tests-failed")
        XCTAssertEqual(budget["evidence"] as? [String], ["the command exited 3", "  3 files over budget"])
        XCTAssertEqual(layer("tool", in: record)?["outcome"] as? String, "host-config", "a tool the host lacks")
        let folder = try lastRunFolder(project)
        XCTAssertEqual(
            try String(contentsOf: folder.appendingPathComponent("budget/exit-code"), encoding: .utf8), "3\n")
        let log = try String(contentsOf: folder.appendingPathComponent("manifest/shell.log"), encoding: .utf8)
        XCTAssertTrue(log.hasPrefix("manifest found in /"), log)
        XCTAssertTrue(log.contains("/workspace"), "the command runs in the run's workspace: \(log)")
        let merge = try project.pipe(["gate", "last", "--for", "merge"])
        XCTAssertEqual(merge.exitCode, 1, merge.combined)
        XCTAssertTrue(merge.stdout.contains("merge gate failed: budget"), merge.stdout)
    }
}

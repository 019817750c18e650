import Foundation
import PipeTestSupport
import XCTest

/// `pipe run` end to end against an emulated Mac host in canned mode: real SSH, real sshd, results replayed from
/// the workspace's `pipe-canned-results.json` (nothing compiles), so orchestration is what is tested.
final class CannedRunTests: EmulatedHostTestCase {
    func testGreenRunBringsBackExitCodeLogBundleAndSummaryForEveryLayer() throws {
        let project = try PipeProject(host: host)
        let result = try project.pipe(["run", "pipelines/app-intents.yml"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(result.stdout.contains("host key SHA256:"), result.stdout)
        XCTAssertTrue(result.stdout.contains("ReadingIDTests/testTrimsSurroundingWhitespace"), result.stdout)
        let record = try project.lastRecord()
        XCTAssertEqual(record["status"] as? String, "finished")
        XCTAssertEqual(record["exitCode"] as? Int, 0)
        XCTAssertEqual((record["commit"] as? String)?.count, 40)
        let runFolder = try XCTUnwrap(project.runFolders().last)
        for name in ["logic", "intent"] {
            let layerRecord = try XCTUnwrap(layer(name, in: record))
            XCTAssertEqual(layerRecord["outcome"] as? String, "passed")
            let folder = runFolder.appendingPathComponent(name)
            XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("exit-code"), encoding: .utf8), "0\n")
            let log = try String(contentsOf: folder.appendingPathComponent("xcodebuild.log"), encoding: .utf8)
            // The two layers share one build (SharedBuildEndToEndTests): each runs test-without-building.
            XCTAssertTrue(log.contains("** TEST EXECUTE SUCCEEDED **"), log)
            let bundles = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasSuffix(".xcresult")
            }
            XCTAssertEqual(bundles.count, 1, "one bundle in \(folder.path)")
            XCTAssertTrue(bundles[0].hasPrefix("app-intents-\(name)-"), bundles[0])
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(bundles[0])/Info.plist").path))
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("xcresult-summary.json").path))
        }
        // The remote run folder is cleaned up.
        let remoteFolder = try XCTUnwrap(record["remoteRunFolder"] as? String)
        XCTAssertNotEqual(
            try host.inspect("test -d \(remoteFolder)").exitCode, 0, "\(remoteFolder) left on the host")
    }

    func testUnknownHostKeyIsRefusedBeforeAnythingRuns() throws {
        let emptyKnownHosts = try TemporaryDirectory(prefix: "pipe-known-hosts")
        defer { emptyKnownHosts.remove() }
        let knownHosts = emptyKnownHosts.appending("known_hosts")
        try "".write(to: knownHosts, atomically: true, encoding: .utf8)
        let project = try PipeProject(host: host, knownHosts: knownHosts)
        let logBefore = host.sshdLog()
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 3, result.combined)
        XCTAssertTrue(result.stdout.contains("SHA256:"), "the refusal shows the fingerprint:\n\(result.combined)")
        let record = try project.lastRecord()
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "infrastructure")
        let newLog = String(host.sshdLog().dropFirst(logBefore.count))
        XCTAssertFalse(newLog.contains("Accepted publickey"), "Pipe logged in despite an unknown host key:\n\(newLog)")
    }

    func testSimUDIDTheHostLacksIsAConfigurationErrorListingWhatItHas() throws {
        let project = try PipeProject(host: host)
        let result = try project.pipe(
            ["run", "app-intents"], environment: ["SIM_UDID": "00000000-0000-4000-8000-000000000000"])
        XCTAssertEqual(result.exitCode, 3, result.combined)
        XCTAssertTrue(result.stdout.contains("SIM_UDID"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains("90052AC6-D47D-4B2A-840D-6B5B081260C6"),
            "available simulators listed:\n\(result.stdout)")
        let record = try project.lastRecord()
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "host-config")
        XCTAssertEqual((layer("logic", in: record)?["attempts"] as? [Any])?.count, 0, "no test ran")
        // The run folder and workspace, made while the simulators were listed, went when the host turned out unfit.
        let remoteFolder = try XCTUnwrap(record["remoteRunFolder"] as? String)
        XCTAssertNotEqual(
            try host.inspect("test -d \(remoteFolder)").exitCode, 0, "\(remoteFolder) left on the host")
    }

    func testAnUnknownRefEndsTheRunAndTheHostConnectedMeanwhileIsNotRecorded() throws {
        // The host's connection is made while the checkout runs: a checkout that fails ends the run as an invalid
        // request, and the host it never used is neither recorded nor shown.
        let project = try PipeProject(host: host)
        let result = try project.pipe(["run", "app-intents", "--ref", "no-such-branch"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.stdout.contains("no branch, tag or commit 'no-such-branch'"), result.stdout)
        XCTAssertFalse(result.stdout.contains("mac-1"), result.stdout)
        XCTAssertNil(try project.lastRecord()["host"], "a host that the run never used is not recorded")
    }

    func testSchemeTheHostDoesNotShareIsHostConfigNotATestFailure() throws {
        var config = try host.readConfig()
        config["sharedSchemes"] = ["Haptics"]
        try host.writeConfig(config)
        let project = try PipeProject(host: host)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 3, result.combined)
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "host-config")
        let evidence = (logic["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(evidence.contains("does not contain a scheme named \"Reader\""), evidence)
        let runFolder = try XCTUnwrap(project.runFolders().last)
        XCTAssertEqual(
            try String(contentsOf: runFolder.appendingPathComponent("logic/exit-code"), encoding: .utf8), "65\n")
    }

    func testTwoRunsBackToBackNeverShareAPath() throws {
        let project = try PipeProject(host: host)
        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0)
        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0)
        let folders = project.runFolders()
        XCTAssertEqual(folders.count, 2)
        var bundlePaths = Set<String>()
        var remoteFolders = Set<String>()
        for folder in folders {
            let record =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: folder.appendingPathComponent("summary.json"))) as? [String: Any]
            remoteFolders.insert(try XCTUnwrap(record?["remoteRunFolder"] as? String))
            for name in ["logic", "intent"] {
                let attempts = try XCTUnwrap(layer(name, in: record ?? [:])?["attempts"] as? [[String: Any]])
                let facts = try XCTUnwrap(attempts.first?["facts"] as? [String: String])
                XCTAssertTrue(bundlePaths.insert(try XCTUnwrap(facts["resultBundleRemotePath"])).inserted)
            }
        }
        XCTAssertEqual(bundlePaths.count, 4)
        XCTAssertEqual(remoteFolders.count, 2)
    }

    func testLayerTimeoutKillsTheRemoteProcessGroup() throws {
        let pipeline = """
            repository:
              workspace: examples/reader-app
            simulator:
              device: iPhone 15
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                timeout: 3s
            """
        let project = try PipeProject(host: host, pipeline: pipeline)
        try makeTestHang(in: project)
        let started = Date()
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60)
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "timed-out")
        let attempt = try XCTUnwrap((logic["attempts"] as? [[String: Any]])?.first)
        let group = try XCTUnwrap((attempt["facts"] as? [String: String])?["remoteProcessGroup"])
        try assertNoProcess(inGroup: group)
    }

    func testCtrlCCancelsKillsRemoteWorkKeepsArtifactsAndExits130() throws {
        let project = try PipeProject(host: host)
        try makeTestHang(in: project)
        let result = try project.pipe(["run", "app-intents"]) { process in
            // Wait until the first layer's remote command runs, then press Ctrl-C.
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if let folder = project.runFolders().last,
                    let log = try? String(
                        contentsOf: folder.appendingPathComponent("logic/xcodebuild.log"), encoding: .utf8),
                    log.contains("Test Suite")
                {
                    break
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            kill(process.processIdentifier, SIGINT)
        }
        XCTAssertEqual(result.exitCode, 130, result.combined)
        let record = try project.lastRecord()
        XCTAssertEqual(record["status"] as? String, "cancelled")
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "cancelled")
        let runFolder = try XCTUnwrap(project.runFolders().last)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: runFolder.appendingPathComponent("logic/xcodebuild.log").path))
        XCTAssertEqual(
            try String(contentsOf: runFolder.appendingPathComponent("logic/exit-code"), encoding: .utf8), "cancelled\n")
        let group = try XCTUnwrap(
            ((logic["attempts"] as? [[String: Any]])?.first?["facts"] as? [String: String])?["remoteProcessGroup"])
        try assertNoProcess(inGroup: group)
        let remoteFolder = try XCTUnwrap(record["remoteRunFolder"] as? String)
        XCTAssertNotEqual(
            try host.inspect("test -d \(remoteFolder)").exitCode, 0, "\(remoteFolder) left on the host")
    }

    func testAnInfrastructureFailureIsRetriedOnceOnAnotherSimulatorAndEveryAttemptKept() throws {
        var config = try host.readConfig()
        config["faults"] = ["crashMidTest": 2]
        try host.writeConfig(config)
        let project = try PipeProject(host: host)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 3, "a crash of xcodebuild is not the app's failure:\n\(result.combined)")
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "infrastructure")
        let attempts = try XCTUnwrap(logic["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.count, 2, "the default policy retries an infrastructure failure once")
        let simulators = attempts.compactMap { $0["simulatorUDID"] as? String }
        XCTAssertEqual(Set(simulators).count, 2, "the retry runs on another simulator: \(simulators)")
        let runFolder = try XCTUnwrap(project.runFolders().last)
        for folder in ["logic", "logic/attempt-2"] {
            XCTAssertTrue(
                FileManager.default.fileExists(
                    atPath: runFolder.appendingPathComponent("\(folder)/xcodebuild.log").path),
                "\(folder) keeps its own log")
        }
    }

    /// The pipeline of the flaky-test cases: the first of the logic tests fails once, then passes.
    private func flakyTestProject() throws -> PipeProject {
        let pipeline = """
            repository:
              workspace: examples/reader-app
            simulator:
              device: iPhone 15
            flaky: ${flaky}
            parameters:
              flaky: allow
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                only-testing: [ReaderTests/ReadingIDTests]
                retry:
                  tests: 2
                  backoff: 0s
            """
        let project = try PipeProject(host: host, pipeline: pipeline)
        try editCannedTests(in: project, message: "a flaky test") { tests in
            tests[0]["failuresBeforePass"] = 1
            tests[0]["file"] = "Tests/ReaderTests/ReadingIDTests.swift"
            tests[0]["line"] = 12
        }
        return project
    }

    /// Counts are never doubled, and CI servers see the test as flaky.
    private func checkFlakyReports(_ project: PipeProject, _ logic: [String: Any]) throws {
        let tests = try XCTUnwrap(logic["tests"] as? [[String: Any]])
        let identifiers = tests.compactMap { $0["identifier"] as? String }
        XCTAssertEqual(identifiers.count, Set(identifiers).count)
        XCTAssertEqual(identifiers.count, 12)
        let junit = try String(
            contentsOf: try XCTUnwrap(project.runFolders().last).appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("<flakyFailure"), "CI servers see the test as flaky:\n\(junit)")
    }

    func testXcodeRunsOnlyTheFailedTestAgainInsideOneAttemptAndTheLayerIsFlaky() throws {
        let project = try flakyTestProject()
        let allowed = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(allowed.exitCode, 0, "flaky passes the merge gate by default:\n\(allowed.combined)")
        let logic = try XCTUnwrap(layer("logic", in: try project.lastRecord()))
        XCTAssertEqual(logic["outcome"] as? String, "flaky")
        let attempts = try XCTUnwrap(logic["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["flaky"], "Xcode retried; the engine did not")
        let facts = try XCTUnwrap(attempts.first?["facts"] as? [String: String])
        XCTAssertTrue(
            facts["command"]?.contains("-retry-tests-on-failure -test-iterations 3") ?? false, "\(facts)")
        let evidence = (logic["evidence"] as? [String])?.joined(separator: "\n") ?? ""
        XCTAssertTrue(evidence.contains("failed and then passed when Xcode ran it again"), evidence)
        XCTAssertFalse(
            evidence.contains("the log's totals"), "the retry's runs agree with XCTest's totals: \(evidence)")
        // Only the failed test ran twice.
        let log = try String(
            contentsOf: try XCTUnwrap(project.runFolders().last).appendingPathComponent("logic/xcodebuild.log"),
            encoding: .utf8)
        let starts = log.components(separatedBy: "\n").filter { $0.hasPrefix("Test Case ") && $0.contains("started") }
        XCTAssertEqual(starts.count, 13, "12 tests, the flaky one twice")
        try checkFlakyReports(project, logic)

        let blocked = try project.pipe(["run", "app-intents", "--param", "flaky=block"])
        XCTAssertEqual(blocked.exitCode, 1, "flaky fails the gate under flaky: block:\n\(blocked.combined)")
    }

    func testOnAnXcodeBefore13ATestRetryIsANewAttemptWithEveryAttemptKept() throws {
        var config = try host.readConfig()
        var xcode = try XCTUnwrap(config["xcode"] as? [String: Any])
        xcode["version"] = "12.5.1"
        config["xcode"] = xcode
        try host.writeConfig(config)
        let project = try flakyTestProject()
        let allowed = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(allowed.exitCode, 0, allowed.combined)
        let logic = try XCTUnwrap(layer("logic", in: try project.lastRecord()))
        XCTAssertEqual(logic["outcome"] as? String, "flaky")
        let attempts = try XCTUnwrap(logic["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["tests-failed", "passed"])
        XCTAssertFalse(
            (attempts.first?["facts"] as? [String: String])?["command"]?.contains("-retry-tests-on-failure") ?? true)
        let bundles = attempts.compactMap { ($0["facts"] as? [String: String])?["resultBundleRemotePath"] }
        XCTAssertEqual(Set(bundles).count, 2, "each attempt has its own fresh bundle path")
        // The layer's tests are the last attempt's, each test once.
        try checkFlakyReports(project, logic)
    }

    func testOnlyRunsTheChosenLayersAndRecordsTheOthersAsNotRun() throws {
        let project = try PipeProject(host: host)
        let typo = try project.pipe(["run", "app-intents", "--only", "intnet"])
        XCTAssertEqual(typo.exitCode, 2, typo.combined)
        XCTAssertTrue(typo.stderr.contains("did you mean 'intent'?"), typo.stderr)

        let result = try project.pipe(["run", "app-intents", "--only", "intent"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertNotNil(result.stdout.range(of: #"- logic +not run"#, options: .regularExpression), result.stdout)
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertNil(logic["outcome"], "a layer that was not selected has no outcome")
        XCTAssertEqual((logic["attempts"] as? [Any])?.count, 0)
        XCTAssertEqual(layer("intent", in: record)?["outcome"] as? String, "passed")
        XCTAssertEqual((record["request"] as? [String: Any])?["onlyLayers"] as? [String], ["intent"])
    }

    func testRerunFailedRunsOnlyWhatDidNotPassAtTheSameCommit() throws {
        let project = try PipeProject(host: host)
        XCTAssertEqual(try project.pipe(["run", "app-intents", "--only", "logic"]).exitCode, 0)
        let first = try project.lastRecord()
        let firstID = try XCTUnwrap(first["runID"] as? String)
        // A later commit must not change what a rerun verifies.
        try project.commit(
            "pipelines/app-intents.yml",
            try String(
                contentsOf: project.url.appendingPathComponent("pipelines/app-intents.yml"), encoding: .utf8) + "\n",
            message: "a later commit")

        let rerun = try project.pipe(["rerun", "last", "--failed"])
        XCTAssertEqual(rerun.exitCode, 0, rerun.combined)
        let second = try project.lastRecord()
        XCTAssertNotEqual(second["runID"] as? String, firstID)
        XCTAssertEqual(second["commit"] as? String, first["commit"] as? String)
        XCTAssertEqual((second["request"] as? [String: Any])?["rerunOf"] as? String, firstID)
        let logic = try XCTUnwrap(layer("logic", in: second))
        XCTAssertEqual(logic["outcome"] as? String, "passed")
        XCTAssertEqual((logic["attempts"] as? [Any])?.count, 0, "a layer that passed is not run again")
        XCTAssertTrue(((logic["evidence"] as? [String])?.first ?? "").contains("carried over from run \(firstID)"))
        let intent = try XCTUnwrap(layer("intent", in: second))
        XCTAssertEqual(intent["outcome"] as? String, "passed")
        XCTAssertEqual((intent["attempts"] as? [Any])?.count, 1)

        let nothingLeft = try project.pipe(["rerun", "last", "--failed"])
        XCTAssertEqual(nothingLeft.exitCode, 0)
        XCTAssertTrue(nothingLeft.stdout.contains("nothing to run again"), nothingLeft.stdout)
    }

    func testEveryRunLeavesJUnitAndMarkdownReportsAndJSONLinesOnRequest() throws {
        let project = try PipeProject(host: host)
        let result = try project.pipe(["run", "app-intents", "--json", "--junit", "out/junit.xml"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(events.count, result.stdout.split(separator: "\n").count, "every line is one JSON object")
        XCTAssertEqual(events.first?["event"] as? String, "run-started")
        XCTAssertEqual(events.last?["event"] as? String, "run-finished")
        XCTAssertEqual(events.filter { $0["event"] as? String == "test-finished" }.count, 19)

        let runFolder = try XCTUnwrap(project.runFolders().last)
        let junit = try String(contentsOf: runFolder.appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("<testsuite name=\"logic\""), junit)
        XCTAssertEqual(
            try String(contentsOf: project.url.appendingPathComponent("out/junit.xml"), encoding: .utf8), junit)
        let markdown = try String(contentsOf: runFolder.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("logic"), markdown)
        let shown = try project.pipe(["runs", "show", "last"])
        XCTAssertTrue(shown.stdout.contains("junit.xml"), "the reports are recorded artifacts:\n\(shown.stdout)")
    }

    // MARK: - Helpers

    /// Makes the first ReadingIDTests test take ten minutes in the canned results, and commits it.
    private func makeTestHang(in project: PipeProject) throws {
        try makeFirstTest(of: "ReadingIDTests", take: 600, in: project)
    }
}

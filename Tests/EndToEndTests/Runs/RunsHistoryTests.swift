import Foundation
import PipeTestSupport
import XCTest

/// `pipe runs list|show|prune|flaky|history` over finished runs: real `pipe run`s against an emulated host in
/// canned mode, recorded in the project's real SQLite run store, then read back by other `pipe` processes.
final class RunsHistoryTests: EmulatedHostTestCase {
    func testListAndShowTwoRunsAsTableAndJSON() throws {
        let project = try makeProject()
        XCTAssertEqual(try project.pipe(["run", "app-intents", "--reason", "first"]).exitCode, 0)
        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0)
        let ids = project.runFolders().map(\.lastPathComponent)
        XCTAssertEqual(ids.count, 2)

        let list = try project.pipe(["runs", "list"])
        XCTAssertEqual(list.exitCode, 0, list.combined)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, list.stdout)
        XCTAssertTrue(lines[0].hasPrefix("RUN "), lines[0])
        XCTAssertTrue(lines[1].hasPrefix(ids[1]), "newest first:\n\(list.stdout)")
        XCTAssertTrue(lines[2].hasPrefix(ids[0]), list.stdout)
        for line in lines.dropFirst() {
            for text in ["app-intents", "finished", "mac-1"] { XCTAssertTrue(line.contains(text), line) }
        }

        let rows = try XCTUnwrap(try json(project, ["runs", "list"]) as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["runID"] as? String }, [ids[1], ids[0]])
        let keys = [
            "cancellationRequested", "commit", "durationSeconds", "exitCode", "finishedAt", "host", "layers",
            "pipeline", "problem", "requestedBy", "runID", "startedAt", "status", "trigger",
        ]
        XCTAssertEqual(rows[0].keys.sorted(), keys, "every documented key, null or not")
        XCTAssertEqual(rows[0]["status"] as? String, "finished")
        XCTAssertEqual(rows[0]["exitCode"] as? Int, 0)
        XCTAssertEqual((rows[0]["commit"] as? String)?.count, 40)
        XCTAssertTrue(rows[0]["problem"] is NSNull)
        let layers = try XCTUnwrap(rows[0]["layers"] as? [[String: Any]])
        XCTAssertEqual(layers.map { $0["name"] as? String }, ["logic", "intent", "shortcuts"])
        XCTAssertEqual(layers.map { $0["outcome"] as? String }, ["passed", "passed", "awaiting-signoff"])

        // Filters.
        XCTAssertEqual((try json(project, ["runs", "list", "--limit", "1"]) as? [Any])?.count, 1)
        XCTAssertEqual((try json(project, ["runs", "list", "--status", "cancelled"]) as? [Any])?.count, 0)
        XCTAssertEqual((try json(project, ["runs", "list", "--since", "1h"]) as? [Any])?.count, 2)
        XCTAssertEqual((try json(project, ["runs", "list", "--since", "2999-01-01"]) as? [Any])?.count, 0)
        XCTAssertEqual((try json(project, ["runs", "list", "--pipeline", "other"]) as? [Any])?.count, 0)
        XCTAssertEqual((try json(project, ["runs", "list", "--status", "finished,cancelled"]) as? [Any])?.count, 2)
        // From the newest run's start, written in UTC and in another zone: the newest run alone.
        let newestStart = try XCTUnwrap(rows[0]["startedAt"] as? String)
        XCTAssertEqual((try json(project, ["runs", "list", "--since", newestStart]) as? [Any])?.count, 1)
        let tokyo = ISO8601DateFormatter()
        tokyo.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        tokyo.timeZone = TimeZone(secondsFromGMT: 9 * 3600)
        let inTokyo = tokyo.string(from: try XCTUnwrap(tokyo.date(from: newestStart)))
        XCTAssertTrue(inTokyo.hasSuffix("+09:00"), inTokyo)
        XCTAssertEqual((try json(project, ["runs", "list", "--since", inTokyo]) as? [Any])?.count, 1)
        let badSince = try project.pipe(["runs", "list", "--since", "yesterday"])
        XCTAssertEqual(badSince.exitCode, 2, badSince.combined)
        XCTAssertTrue(badSince.stderr.contains("an age (30m, 2h, 3d, 1w)"), badSince.stderr)

        // Show, as text: what ran, where, on what, with what result, and where the files are.
        let show = try project.pipe(["runs", "show", ids[0]])
        XCTAssertEqual(show.exitCode, 0, show.combined)
        let record = try record(ofRun: project.runFolders()[0])
        let commit = try XCTUnwrap(record["commit"] as? String)
        let host = try XCTUnwrap(record["host"] as? [String: Any])
        let simulator = try XCTUnwrap((record["simulator"] as? [String: Any])?["simulator"] as? [String: Any])
        let expected = [
            "run \(ids[0]) · app-intents · finished · exit 0 (merge gate passed)", "by \(NSUserName()) via cli: first",
            commit, try XCTUnwrap(host["fingerprint"] as? String), "Xcode 16.2",
            try XCTUnwrap(simulator["udid"] as? String),
            "chosen because", "logic: passed", "intent: passed", "attempt 1: passed, exit 0",
            "tests: 12 passed, 0 failed", "(removed)", "artifacts/\(ids[0])/logic/xcodebuild.log",
            "artifacts/\(ids[0])/intent/exit-code", "sha256:",
        ]
        for text in expected { XCTAssertTrue(show.stdout.contains(text), "'\(text)' missing from:\n\(show.stdout)") }
        XCTAssertFalse(show.stdout.contains("not recorded"), show.stdout)

        // Show, as JSON: the run record plus what only the store knows, with sizes and digests of real files.
        let shown = try XCTUnwrap(try json(project, ["runs", "show", ids[0]]) as? [String: Any])
        XCTAssertEqual(shown["runID"] as? String, ids[0])
        XCTAssertEqual(shown["commit"] as? String, commit)
        XCTAssertEqual(shown["remoteFolderPendingCleanup"] as? Bool, false)
        XCTAssertEqual((shown["unrecordedFiles"] as? [Any])?.count, 0)
        XCTAssertEqual((shown["owner"] as? [String: Any])?["hostname"] as? String, ProcessInfo.processInfo.hostName)
        let logic = try XCTUnwrap(layer("logic", in: shown))
        let artifacts = try XCTUnwrap((logic["attempts"] as? [[String: Any]])?.first?["artifacts"] as? [[String: Any]])
        let log = try XCTUnwrap(artifacts.first { ($0["path"] as? String)?.hasSuffix("xcodebuild.log") == true })
        let logData = try Data(contentsOf: project.url.appendingPathComponent(try XCTUnwrap(log["path"] as? String)))
        XCTAssertEqual(log["bytes"] as? Int, logData.count)
        XCTAssertEqual(log["sha256"] as? String, try sha256(logData))
        XCTAssertNotNil((shown["layerTimes"] as? [String: Any])?["intent"])
    }

    func testRunsAreNamedByUniquePrefixOrLastAndAnAmbiguousPrefixIsRefused() throws {
        let project = try makeProject()
        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0)
        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0)
        let ids = project.runFolders().map(\.lastPathComponent)
        let common = String(zip(ids[0], ids[1]).prefix { $0 == $1 }.map(\.0))
        let unique = String(ids[0].prefix(common.count + 1))

        let byPrefix = try project.pipe(["runs", "show", unique])
        XCTAssertEqual(byPrefix.exitCode, 0, byPrefix.combined)
        XCTAssertTrue(byPrefix.stdout.hasPrefix("run \(ids[0]) "), byPrefix.stdout)
        for typed in ["last", ids[1]] {
            let shown = try project.pipe(["runs", "show", typed])
            XCTAssertEqual(shown.exitCode, 0, shown.combined)
            XCTAssertTrue(shown.stdout.hasPrefix("run \(ids[1]) "), "\(typed):\n\(shown.stdout)")
        }
        XCTAssertTrue(try project.pipe(["runs", "show"]).stdout.hasPrefix("run \(ids[1]) "), "last by default")

        // The matches are listed in id order; two runs started in the same second sort by their random suffix,
        // so that order need not be the order they started in.
        let ambiguous = try project.pipe(["runs", "show", common])
        XCTAssertEqual(ambiguous.exitCode, 2, ambiguous.combined)
        let listed = ids.sorted().joined(separator: ", ")
        XCTAssertTrue(
            ambiguous.stderr.contains("'\(common)' matches 2 runs (\(listed)); type more of the id"),
            ambiguous.stderr)
        let unknown = try project.pipe(["runs", "logs", "1999"])
        XCTAssertEqual(unknown.exitCode, 2, unknown.combined)
        XCTAssertTrue(unknown.stderr.contains("no run id starts with '1999'"), unknown.stderr)

        // Nothing to cancel in a finished run: said clearly, exit 2, and the record is untouched.
        let cancel = try project.pipe(["runs", "cancel", "last"])
        XCTAssertEqual(cancel.exitCode, 2, cancel.combined)
        XCTAssertTrue(cancel.stderr.contains("is not in progress: it is finished"), cancel.stderr)
        let after = try XCTUnwrap(try json(project, ["runs", "show", "last"]) as? [String: Any])
        XCTAssertTrue(after["cancellation"] is NSNull)

        // The recorded output of a finished run is its layers' logs, in order.
        let logs = try project.pipe(["runs", "logs", "last"])
        XCTAssertEqual(logs.exitCode, 0, logs.combined)
        let folder = try XCTUnwrap(project.runFolders().last)
        let logicLog = try String(contentsOf: folder.appendingPathComponent("logic/xcodebuild.log"), encoding: .utf8)
        let intentLog = try String(contentsOf: folder.appendingPathComponent("intent/xcodebuild.log"), encoding: .utf8)
        // The build logic and intent share is run, and shown, by logic.
        let buildLog = try String(
            contentsOf: folder.appendingPathComponent("build-for-testing/logic+intent/xcodebuild.log"), encoding: .utf8)
        XCTAssertEqual(logs.stdout, buildLog + logicLog + intentLog)
        XCTAssertTrue(logs.stderr.contains("==> layer logic, attempt 1 <=="), logs.stderr)
        let intentOnly = try project.pipe(["runs", "logs", "last", "--layer", "intent"])
        XCTAssertEqual(intentOnly.stdout, intentLog)
        let badLayer = try project.pipe(["runs", "logs", "last", "--layer", "intnt"])
        XCTAssertEqual(badLayer.exitCode, 2)
        XCTAssertTrue(badLayer.stderr.contains("did you mean 'intent'?"), badLayer.stderr)
    }

    func testPruneKeepsTheNewestNDeletesTheOthersFoldersAndReportsFreedBytes() throws {
        let project = try makeProject()
        for _ in 0..<3 { XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0) }
        let folders = project.runFolders()
        XCTAssertEqual(folders.count, 3)
        let expectedBytes = try folders.prefix(2).map(fileBytes).reduce(0, +)

        let dryRun = try project.pipe(["runs", "prune", "--keep", "1", "--dry-run"])
        XCTAssertEqual(dryRun.exitCode, 0, dryRun.combined)
        XCTAssertTrue(dryRun.stdout.contains("would free"), dryRun.stdout)
        XCTAssertTrue(dryRun.stdout.contains("(\(expectedBytes) bytes)"), dryRun.stdout)
        XCTAssertEqual(project.runFolders(), folders, "a dry run deletes nothing")
        XCTAssertEqual((try json(project, ["runs", "list"]) as? [Any])?.count, 3)

        let prune = try project.pipe(["runs", "prune", "--keep", "1"])
        XCTAssertEqual(prune.exitCode, 0, prune.combined)
        XCTAssertTrue(prune.stdout.contains("removed 2 runs"), prune.stdout)
        XCTAssertTrue(prune.stdout.contains("freed"), prune.stdout)
        XCTAssertTrue(prune.stdout.contains("(\(expectedBytes) bytes)"), prune.stdout)
        for folder in folders.prefix(2) {
            XCTAssertTrue(prune.stdout.contains(folder.lastPathComponent), prune.stdout)
        }
        XCTAssertEqual(project.runFolders(), [folders[2]], "the newest run's folder alone is left")
        let left = try XCTUnwrap(try json(project, ["runs", "list"]) as? [[String: Any]])
        XCTAssertEqual(left.map { $0["runID"] as? String }, [folders[2].lastPathComponent])

        let again = try project.pipe(["runs", "prune", "--keep", "1"])
        XCTAssertEqual(again.exitCode, 0, again.combined)
        XCTAssertTrue(again.stdout.contains("nothing to prune"), again.stdout)
        let noPolicy = try project.pipe(["runs", "prune"])
        XCTAssertEqual(noPolicy.exitCode, 2, noPolicy.combined)
        XCTAssertTrue(noPolicy.stderr.contains("--keep <n>"), noPolicy.stderr)
    }

    /// Canned results are fixed by the committed workspace, so one commit cannot replay a test both passing and
    /// failing by itself. The commit instead carries a second shared scheme whose canned entry fails one test, and
    /// the second run picks it with `--param scheme=…`: two real runs of one pipeline and layer at one commit, one
    /// passing and one failing the same test identifier. The history holds exactly what a flaky test leaves (the
    /// store cannot know why the result changed, and `flaky` must not need to).
    func testFlakyListsATestThatPassedAndFailedAtOneCommitAndHistoryShowsBoth() throws {
        let project = try makeProject()
        let flakyTest = "testRejectsInnerSpace"
        try editCannedResults(in: project, message: "a scheme whose run fails one test") { schemes in
            var failing = try XCTUnwrap(schemes["Reader"] as? [String: Any])
            var tests = try XCTUnwrap(failing["tests"] as? [[String: Any]])
            let index = try XCTUnwrap(tests.firstIndex { $0["name"] as? String == flakyTest })
            tests[index]["status"] = "failed"
            tests[index]["message"] = "XCTAssertThrowsError failed: did not throw"
            tests[index]["file"] = "Tests/ReaderTests/ReadingIDTests.swift"
            tests[index]["line"] = 30
            failing["tests"] = tests
            schemes["ReaderOnSlowSimulator"] = failing
        }
        var config = try host.readConfig()
        config["sharedSchemes"] = ["Reader", "ReaderOnSlowSimulator"]
        try host.writeConfig(config)

        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0)
        let failed = try project.pipe(["run", "app-intents", "--param", "scheme=ReaderOnSlowSimulator"])
        XCTAssertEqual(failed.exitCode, 1, failed.combined)
        let ids = project.runFolders().map(\.lastPathComponent)
        let commits = try project.runFolders().map { try record(ofRun: $0)["commit"] as? String }
        XCTAssertEqual(Set(commits).count, 1, "both runs verified one commit")

        let identifier = "ReadingIDTests/\(flakyTest)()"
        let flaky = try project.pipe(["runs", "flaky"])
        XCTAssertEqual(flaky.exitCode, 0, flaky.combined)
        let rows = flaky.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows.count, 2, "a header and one flaky test:\n\(flaky.stdout)")
        for text in [identifier, "app-intents/logic", String(try XCTUnwrap(commits[0]).prefix(10)), ids[0], ids[1]] {
            XCTAssertTrue(rows[1].contains(text), "'\(text)' missing from: \(rows[1])")
        }
        let entries = try XCTUnwrap(
            try json(project, ["runs", "flaky", "--pipeline", "app-intents"]) as? [[String: Any]])
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries.first?["identifier"] as? String, identifier)
        XCTAssertEqual(entries.first?["passes"] as? Int, 1)
        XCTAssertEqual(entries.first?["failures"] as? Int, 1)
        XCTAssertEqual(entries.first?["runIDs"] as? [String], ids)
        XCTAssertEqual((try json(project, ["runs", "flaky", "--pipeline", "other"]) as? [Any])?.count, 0)
        XCTAssertEqual((try json(project, ["runs", "flaky", "--since", "2999-01-01"]) as? [Any])?.count, 0)

        let history = try project.pipe(["runs", "history", identifier])
        XCTAssertEqual(history.exitCode, 0, history.combined)
        let lines = history.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, history.stdout)
        XCTAssertTrue(lines[1].hasPrefix(ids[1]) && lines[1].contains("failed: XCTAssertThrowsError"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix(ids[0]) && lines[2].hasSuffix("passed"), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("2 results: 1 passed, 1 failed"), lines[3])
        let typo = try project.pipe(["runs", "history", "testRejectsInnerSpace"])
        XCTAssertEqual(typo.exitCode, 2, typo.combined)
        XCTAssertTrue(typo.stderr.contains("did you mean: \(identifier)"), typo.stderr)
    }

    // MARK: - Helpers

    /// The bytes of the regular files under `folder`, as `prune` counts them.
    private func fileBytes(_ folder: URL) throws -> Int64 {
        let output = try CommandRunner.shell("find . -type f -printf '%s\\n'", currentDirectory: folder).stdout
        return output.split(separator: "\n").compactMap { Int64($0) }.reduce(0, +)
    }

    private func sha256(_ data: Data) throws -> String {
        let folder = try TemporaryDirectory(prefix: "pipe-digest")
        defer { folder.remove() }
        try data.write(to: folder.appending("file"))
        let output = try CommandRunner.shell("sha256sum file", currentDirectory: folder.url).stdout
        return String(output.prefix(64))
    }
}

import Foundation
import PipeTestSupport
import XCTest

/// The trust levels end to end (docs/security.md, "Trust levels"): the built `pipe` against emulated Macs whose
/// hosts-file entries carry `trust:`, with the project's `trusted-refs:` in project.yml.
final class HostTrustEndToEndTests: EmulatedHostTestCase {
    private func entry(_ host: EmulatedMacHost, trust: String) -> String {
        host.hostsFileEntry().replacingOccurrences(
            of: "    capacity: 1\n", with: "    capacity: 1\n    trust: \(trust)\n")
    }

    private func code(of record: [String: Any]) -> [String: Any]? { record["code"] as? [String: Any] }

    func testARunOnAHostOfAnotherLevelIsRefusedBeforeAnythingIsSent() throws {
        let project = try makeProject()
        try project.writeHostsFile(entry(host, trust: "release"))
        let result = try project.pipe(["run", "app-intents", "--host", "mac-1"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(
            result.combined.contains("host mac-1 is `release`; this run's code is `trusted` (commit "),
            result.combined)
        XCTAssertTrue(result.combined.contains("project.yml lists no trusted-refs"), result.combined)
        // Not even a login: the host was refused before any connection was made.
        XCTAssertFalse(host.sshdLog().contains("Accepted publickey"), host.sshdLog())
        let record = try project.lastRecord()
        XCTAssertEqual(code(of: record)?["level"] as? String, "trusted")
        XCTAssertNil(record["host"], "no host was recorded for the refused run")
        let runID = try XCTUnwrap(record["runID"] as? String)
        let listing = try host.inspect("test -e \(host.workDirectory)/runs/\(runID) && echo present || echo absent")
        XCTAssertEqual(listing.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "absent", listing.combined)
    }

    func testACommitReachableFromATrustedRefRunsOnAReleaseHost() throws {
        let project = try makeProject()
        try project.writeHostsFile(entry(host, trust: "release"))
        try "trusted-refs: [main, \"release/*\"]\n".write(
            to: project.url.appendingPathComponent("project.yml"), atomically: true, encoding: .utf8)
        let result = try project.pipe(["run", "app-intents", "--host", "mac-1", "--only", "logic"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let code = try XCTUnwrap(code(of: try project.lastRecord()))
        XCTAssertEqual(code["level"] as? String, "release")
        XCTAssertTrue((code["reason"] as? String ?? "").hasSuffix("is reachable from refs/heads/main"), "\(code)")
        let shown = try project.pipe(["runs", "show", "last"])
        XCTAssertTrue(shown.stdout.contains("release: commit "), shown.combined)
    }

    func testABranchThatIsNotProtectedIsRefusedByAReleaseHost() throws {
        let project = try makeProject()
        try project.writeHostsFile(entry(host, trust: "release"))
        try "trusted-refs: [main]\n".write(
            to: project.url.appendingPathComponent("project.yml"), atomically: true, encoding: .utf8)
        try project.shell("git checkout -q -b feature")
        try project.commit("examples/reader-app/NOTES.md", "feature work\n", message: "feature")
        let result = try project.pipe(["run", "app-intents", "--host", "mac-1", "--ref", "feature"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(
            result.combined.contains(
                "is not reachable from main): no host of the hosts file runs it; add one with `trust: trusted`"),
            result.combined)
        XCTAssertFalse(host.sshdLog().contains("Accepted publickey"), host.sshdLog())
    }

    func testAPoolChoosesOnlyTheHostsThatMayRunTheCode() throws {
        let project = try makeProject()
        let second = try addSecondHost(to: project)
        try project.writeHostsFile(
            entry(host, trust: "untrusted") + entry(second, trust: "trusted"))
        let result = try project.pipe(["run", "app-intents", "--only", "logic"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(
            result.combined.contains("host mac-1 left out: it is `untrusted` and this run's code is `trusted`"),
            result.combined)
        let record = try project.lastRecord()
        XCTAssertEqual((record["host"] as? [String: Any])?["name"] as? String, "mac-2")
        XCTAssertFalse(host.sshdLog().contains("Accepted publickey"), "the untrusted host was never logged in to")
        let listed = try project.pipe(["hosts", "list", "--json"])
        let hosts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(hosts.map { $0["trust"] as? String }, ["untrusted", "trusted"])
    }

    /// A layer whose host is gone is retried on another host of the pool only where that host may run the code.
    func testARetryNeverMovesTheRunToAHostOfAnotherLevel() throws {
        let project = try makeProject(
            pipeline: """
                repository: {workspace: examples/reader-app}
                simulator: {device: iPhone 15}
                retry: {infrastructure: 1, backoff: 0}
                layers: {logic: {plugin: xcodebuild-test, scheme: Reader, only-testing: [ReaderTests/ReadingIDTests]}}
                """)
        let second = try addSecondHost(to: project)
        try project.writeHostsFile(
            entry(host, trust: "trusted") + entry(second, trust: "untrusted"))
        try makeFirstTest(of: "ReadingIDTests", take: 4, in: project)
        let pipe = try BackgroundPipe(["run", "app-intents"], in: project)
        waitUntilTestsRun(in: project, layer: "logic")
        try dropConnections(alsoTheListener: true)
        let ended = pipe.wait(timeout: 90)
        XCTAssertEqual(ended.exitCode, 3, "no host may take the retry:\n\(ended.combined)")
        XCTAssertFalse(ended.stdout.contains("moved the run"), ended.stdout)
        XCTAssertFalse(second.sshdLog().contains("Accepted publickey"), "the untrusted host was never logged in to")
    }

    /// A repository a parameter chose is a source the project does not name: its code runs on untrusted hosts only.
    func testCodeFromARepositoryAParameterChoseIsUntrusted() throws {
        let project = try makeProject(
            pipeline: """
                parameters: {repo: {required: true}}
                repository: {url: "${repo}", workspace: examples/reader-app}
                layers: {logic: {plugin: xcodebuild-test, scheme: Reader}}
                """)
        let result = try project.pipe(["run", "app-intents", "--param", "repo=\(project.url.path)"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(
            result.combined.contains("host mac-1 is `trusted`; this run's code is `untrusted`"), result.combined)
        XCTAssertTrue(result.combined.contains("add one with `trust: untrusted` to the hosts file"), result.combined)
        XCTAssertFalse(host.sshdLog().contains("Accepted publickey"), host.sshdLog())
        XCTAssertEqual(code(of: try project.lastRecord())?["level"] as? String, "untrusted")
    }
}

import Foundation
import PipeTestSupport
import XCTest

/// `scripts/mac-pool`: three emulated Macs and one hosts file naming them, ready for `pipe`.
final class HostsPoolScriptTests: XCTestCase {
    func testThePoolComesUpWithThreeDifferentHostsAndGoesDown() throws {
        let state = try TemporaryDirectory(prefix: "pipe-mac-pool")
        defer { state.remove() }
        let script = RepositoryPaths.root.appendingPathComponent("scripts/mac-pool")
        let hostsFile = state.appending("project/.pipe/hosts.yml")
        defer { _ = try? CommandRunner.run(script, ["down", "--state", state.url.path]) }
        let up = try CommandRunner.run(script, ["up", "--state", state.url.path, "--hosts-file", hostsFile.path])
        XCTAssertEqual(up.exitCode, 0, up.combined)
        try FileManager.default.createDirectory(
            at: state.appending("project/pipelines"), withIntermediateDirectories: true)

        let check = try CommandRunner.run(
            RepositoryPaths.pipeBinary, ["hosts", "check", "--json"], currentDirectory: state.appending("project"))
        XCTAssertEqual(check.exitCode, 0, check.combined)
        let hosts = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(hosts.map { $0["name"] as? String }, ["mac-1", "mac-2", "mac-3"])
        XCTAssertEqual(
            hosts.map { ($0["xcode"] as? [String: Any])?["version"] as? String }, ["16.2", "15.4", "16.3"])
        XCTAssertEqual(hosts.map { $0["capacity"] as? Int }, [2, 1, 3])
        XCTAssertEqual(
            Set(hosts.compactMap { ($0["labels"] as? [String: String])?["xcode"] }), ["16.2", "15.4", "16.3"])
        XCTAssertEqual(Set(hosts.compactMap { ($0["hostKey"] as? [String: Any])?["fingerprint"] as? String }).count, 3)

        let down = try CommandRunner.run(script, ["down", "--state", state.url.path])
        XCTAssertEqual(down.exitCode, 0, down.combined)
        let after = try CommandRunner.run(
            RepositoryPaths.pipeBinary, ["hosts", "check"], currentDirectory: state.appending("project"))
        XCTAssertEqual(after.exitCode, 3, after.combined)
        XCTAssertTrue(after.stderr.contains("3 of 3 hosts unusable"), after.stderr)
    }
}

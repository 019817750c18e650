import Foundation
import PipeTestSupport
import XCTest

/// A watched branch: a new head commit runs the pipeline at exactly that commit, once, across restarts.
final class ControllerWatchTests: ControllerTestCase {
    func testANewCommitOnAWatchedBareRepositoryRunsOnceForThatSHA() throws {
        let bare = try TemporaryDirectory(prefix: "pipe-watched")
        defer { bare.remove() }
        let repository = bare.url.appendingPathComponent("app.git").path
        let project = try controllerProject(repository: repository)
        try project.shell("git clone -q --bare . '\(repository)'")
        try writeConfig(
            """
            watches:
              main:
                pipeline: app-intents
                branches: [main, "release/*"]
                interval: 1s
            """, in: project)
        let controller = try startController(in: project)

        // The first look records where main is; it runs nothing for the commits that were already there.
        let baseline = try headOf("main", in: repository, project: project)
        try waitUntil("the watch has seen main", timeout: 30) {
            try lastSeen(in: project)["main"] == baseline
        }
        XCTAssertEqual(try runs(project).count, 0)

        // A new commit pushed to the watched repository runs the pipeline at that commit, once.
        try project.shell(
            "echo change > NOTES && git add NOTES && git -c user.email=e2e@pipe.test -c user.name=e2e commit -qm change"
        )
        try project.shell("git push -q '\(repository)' main")
        let pushed = try headOf("main", in: repository, project: project)
        XCTAssertNotEqual(pushed, baseline)
        try waitUntil("the run for the new commit has ended", timeout: 60) {
            try runs(project).contains { $0["commit"] as? String == pushed && isEnded($0) }
        }
        // A few more polls see the same head: nothing more is queued.
        Thread.sleep(forTimeInterval: 2.5)
        var all = try runs(project)
        XCTAssertEqual(all.count, 1, "\(all)")
        XCTAssertEqual(all.first?["commit"] as? String, pushed)
        XCTAssertEqual(all.first?["status"] as? String, "finished")
        XCTAssertEqual(all.first?["trigger"] as? String, "watch")
        XCTAssertEqual(all.first?["requestedBy"] as? String, "watch main")
        XCTAssertEqual(try lastSeen(in: project)["main"], pushed)
        let log = output(of: controller)
        XCTAssertTrue(log.contains("new commit \(pushed.prefix(12)) on main: queued run"), log)
        XCTAssertEqual(stop(controller).exitCode, 0, output(of: controller))

        // Restarted, the controller remembers the head: still one run for that commit.
        let again = try startController(in: project)
        Thread.sleep(forTimeInterval: 2.5)
        all = try runs(project)
        XCTAssertEqual(all.count, 1, "\(all)")
        let ended = stop(again)
        XCTAssertEqual(ended.exitCode, 0, ended.combined)
        XCTAssertFalse(ended.stdout.contains("queued run"), ended.stdout)
    }

    private func headOf(_ branch: String, in repository: String, project: PipeProject) throws -> String {
        let result = try CommandRunner.shell(
            "git --git-dir='\(repository)' rev-parse \(branch)", currentDirectory: project.url)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The watch `main`'s last seen SHA of each branch, from `pipe controller status --json`.
    private func lastSeen(in project: PipeProject) throws -> [String: String] {
        let watches = try XCTUnwrap(try status(project)["watches"] as? [[String: Any]])
        let heads = (watches.first { $0["name"] as? String == "main" }?["heads"] as? [[String: Any]]) ?? []
        var result: [String: String] = [:]
        for head in heads {
            if let branch = head["branch"] as? String, let sha = head["sha"] as? String { result[branch] = sha }
        }
        return result
    }
}

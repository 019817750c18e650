import Foundation
import PipeCore
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// A pushed branch's head is read from the pipeline's repository, and a Git server that never answers cannot hold
/// the webhook's answer past the bound.
final class ForgeBranchHeadTests: XCTestCase {
    private func push(_ ref: String) -> ForgeTrigger {
        ForgeTrigger(
            forge: "github", repository: "o/r", event: .push, number: nil, headSHA: String(repeating: "a", count: 40),
            headBranch: "main", fetchRef: ref)
    }

    func testTheBranchHeadComesFromTheRepository() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-branch-head")
        defer { folder.remove() }
        let result = try CommandRunner.shell(
            "git init -q -b main && git -c user.email=t@pipe.test -c user.name=t commit -q --allow-empty -m one "
                + "&& git rev-parse HEAD", currentDirectory: folder.url)
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let head = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(ForgeBranchHead.current(of: push("refs/heads/main"), repository: folder.url.path), head)
        XCTAssertNil(ForgeBranchHead.current(of: push("refs/heads/gone"), repository: folder.url.path))
    }

    func testAServerThatNeverAnswersIsGivenUpOnAtTheBound() throws {
        let listener = try SilentListener()
        // Connections are completed by the kernel and never read: the Git request waits for an answer forever.
        let url = "git://127.0.0.1:\(listener.port)/silent.git"
        let started = Date()
        XCTAssertNil(ForgeBranchHead.current(of: push("refs/heads/main"), repository: url, timeoutSeconds: 0.5))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "given up on near the bound, not after the server")
        withExtendedLifetime(listener) {}
    }
}

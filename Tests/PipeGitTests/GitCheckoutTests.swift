import Foundation
import PipeCore
import PipeGit
import XCTest

final class GitCheckoutTests: XCTestCase {
    private var fixture: GitFixture!
    private var first = ""
    private var second = ""
    private var featureTip = ""

    /// main: first (tagged v1.0, annotated) → second; feature: second → feature tip. HEAD on main.
    override func setUpWithError() throws {
        fixture = try GitFixture()
        first = try fixture.commit("first", files: ["README.md": "version 1\n"])
        try fixture.git("tag", "-a", "v1.0", "-m", "release 1.0")
        second = try fixture.commit("second", files: ["README.md": "version 2\n"])
        try fixture.git("checkout", "-q", "-b", "feature")
        featureTip = try fixture.commit("feature work", files: ["feature.txt": "new\n"])
        try fixture.git("checkout", "-q", "main")
    }

    override func tearDown() {
        fixture = nil
    }

    private func checkout(_ ref: String, into name: String = UUID().uuidString) throws -> CheckoutResult {
        try GitCheckout.checkout(
            repository: fixture.repository.path, ref: ref, into: fixture.path("runs/\(name)"),
            mirrorsFolder: fixture.mirrors)
    }

    private func readme(in result: CheckoutResult) throws -> String {
        try String(contentsOf: result.workTree.appendingPathComponent("README.md"), encoding: .utf8)
    }

    func testBranchChecksOutItsTipCommit() throws {
        let result = try checkout("main")
        XCTAssertEqual(result.commitSHA, second)
        XCTAssertEqual(result.resolvedRef, "refs/heads/main")
        XCTAssertEqual(try readme(in: result), "version 2\n")
        XCTAssertTrue(result.mirrorUpdate.cloned)
    }

    func testOtherBranchChecksOutItsOwnFiles() throws {
        let result = try checkout("feature")
        XCTAssertEqual(result.commitSHA, featureTip)
        XCTAssertEqual(result.resolvedRef, "refs/heads/feature")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: result.workTree.appendingPathComponent("feature.txt").path))
    }

    func testAnnotatedTagChecksOutTheCommitItTags() throws {
        let result = try checkout("v1.0")
        XCTAssertEqual(result.commitSHA, first)
        XCTAssertEqual(result.resolvedRef, "refs/tags/v1.0")
        XCTAssertEqual(try readme(in: result), "version 1\n")
    }

    func testShortAndFullSHAsCheckOutThatCommit() throws {
        let short = try checkout(String(first.prefix(7)))
        XCTAssertEqual(short.commitSHA, first)
        XCTAssertEqual(short.resolvedRef, first)
        let full = try checkout(first.uppercased())
        XCTAssertEqual(full.commitSHA, first)
        XCTAssertEqual(try readme(in: full), "version 1\n")
    }

    func testHEADIsTheRepositorysCurrentCommitAndNamesItsBranch() throws {
        let result = try checkout("HEAD")
        XCTAssertEqual(result.commitSHA, second)
        XCTAssertEqual(result.resolvedRef, "refs/heads/main")
        XCTAssertEqual(result.commitSHA.count, 40)
    }

    func testDetachedHEADOnNoBranchIsStillCheckedOut() throws {
        try fixture.git("checkout", "-q", "--detach", "main")
        let detached = try fixture.commit("only reachable from HEAD", files: ["loose.txt": "x\n"])
        let result = try checkout("HEAD")
        XCTAssertEqual(result.commitSHA, detached)
        XCTAssertEqual(result.resolvedRef, "HEAD")
        XCTAssertTrue(FileManager.default.fileExists(atPath: result.workTree.appendingPathComponent("loose.txt").path))
    }

    func testRevisionExpressionsAreAccepted() throws {
        let result = try checkout("main~1")
        XCTAssertEqual(result.commitSHA, first)
    }

    func testOriginSlashBranchFindsTheRemotesOwnBranch() throws {
        // Seen from the mirror, the repository itself is origin: origin/feature is its branch feature.
        let result = try checkout("origin/feature")
        XCTAssertEqual(result.commitSHA, featureTip)
        XCTAssertEqual(result.resolvedRef, "refs/heads/feature")
    }

    func testOriginSlashBranchOfALocalCloneUsesItsRemoteTrackingBranch() throws {
        let clone = fixture.path("clone")
        try fixture.git("clone", "-q", fixture.repository.path, clone.path, in: fixture.root)
        try fixture.git("reset", "-q", "--hard", first, in: clone)  // local main now differs from origin/main
        let result = try GitCheckout.checkout(
            repository: clone.path, ref: "origin/main", into: fixture.path("run"), mirrorsFolder: fixture.mirrors)
        XCTAssertEqual(result.commitSHA, second)
        XCTAssertEqual(result.resolvedRef, "refs/remotes/origin/main")
        let local = try GitCheckout.resolveCommit(repository: clone.path, ref: "main", mirrorsFolder: fixture.mirrors)
        XCTAssertEqual(local.sha, first)
    }

    func testFileURLWorksLikeAPath() throws {
        let result = try GitCheckout.checkout(
            repository: "file://" + fixture.repository.path, ref: "main", into: fixture.path("run"),
            mirrorsFolder: fixture.mirrors)
        XCTAssertEqual(result.commitSHA, second)
    }

    func testUnknownRefIsATypedErrorSuggestingTheClosestNames() throws {
        assertThrowsGitError(try checkout("mian", into: "typo")) { error in
            guard case .unknownRef(let ref, _, let suggestions, let known) = error else {
                return XCTFail("expected unknownRef, got \(error)")
            }
            XCTAssertEqual(ref, "mian")
            XCTAssertEqual(suggestions.first, "main")
            XCTAssertEqual(Set(known), ["main", "feature", "v1.0"])
            XCTAssertTrue(error.description.contains("Did you mean 'main'"), error.description)
            XCTAssertTrue(error.description.contains("full or short commit SHA, or HEAD"), error.description)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.path("runs/typo").path))
        assertThrowsGitError(try checkout("v1.1")) { error in
            guard case .unknownRef(_, _, let suggestions, _) = error else {
                return XCTFail("expected unknownRef, got \(error)")
            }
            XCTAssertEqual(suggestions.first, "v1.0")
        }
    }

    func testUnknownRefWithNothingCloseListsWhatExists() throws {
        assertThrowsGitError(try checkout("release-candidate-2024")) { error in
            guard case .unknownRef(_, _, let suggestions, _) = error else {
                return XCTFail("expected unknownRef, got \(error)")
            }
            XCTAssertEqual(suggestions, [])
            XCTAssertTrue(error.description.contains("It has: feature, main, v1.0."), error.description)
        }
    }

    func testUnknownSHAIsAnUnknownRef() throws {
        assertThrowsGitError(try checkout(String(repeating: "ab", count: 20))) { error in
            guard case .unknownRef = error else { return XCTFail("expected unknownRef, got \(error)") }
        }
        assertThrowsGitError(try checkout("abcdef0")) { error in
            guard case .unknownRef = error else { return XCTFail("expected unknownRef, got \(error)") }
        }
    }

    func testSecondCheckoutFetchesIntoTheMirrorAndSeesTheNewCommit() throws {
        let cold = try checkout("main")
        XCTAssertTrue(cold.mirrorUpdate.cloned)
        let third = try fixture.commit("third", files: ["README.md": "version 3\n", "added.txt": "added\n"])
        let warm = try checkout("main")
        XCTAssertFalse(warm.mirrorUpdate.cloned)
        XCTAssertEqual(warm.mirror, cold.mirror)
        XCTAssertEqual(warm.commitSHA, third)
        XCTAssertEqual(try readme(in: warm), "version 3\n")
        XCTAssertEqual(try readme(in: cold), "version 2\n", "an earlier run's work tree is left as it was")
        let mirrorFolders = try FileManager.default.contentsOfDirectory(atPath: fixture.mirrors.path)
            .filter { !$0.hasSuffix(".lock") }
        XCTAssertEqual(mirrorFolders.count, 1, "one mirror per repository, no partial clones left: \(mirrorFolders)")
    }

    func testBranchDeletedFromTheRepositoryIsGoneFromTheMirror() throws {
        XCTAssertEqual(try checkout("feature").commitSHA, featureTip)
        try fixture.git("branch", "-q", "-D", "feature")
        assertThrowsGitError(try checkout("feature")) { error in
            guard case .unknownRef = error else { return XCTFail("expected unknownRef, got \(error)") }
        }
    }

    func testAPullRequestHeadOnNoBranchIsFetchedByItsOwnRefAndKeptThroughPruning() throws {
        _ = try checkout("main")
        // A fork's commit: on the forge it is only under refs/pull/7/head.
        try fixture.git("checkout", "-q", "-b", "fork-work")
        let forkHead = try fixture.commit("fork work", files: ["fork.txt": "from a fork\n"])
        try fixture.git("update-ref", "refs/pull/7/head", forkHead)
        try fixture.git("checkout", "-q", "main")
        try fixture.git("branch", "-q", "-D", "fork-work")
        assertThrowsGitError(try checkout(forkHead)) { error in
            guard case .unknownRef = error else { return XCTFail("expected unknownRef, got \(error)") }
        }

        let pulled = try GitCheckout.checkout(
            repository: fixture.repository.path, ref: forkHead, into: fixture.path("runs/pull-7"),
            mirrorsFolder: fixture.mirrors, fetchRef: "refs/pull/7/head")
        XCTAssertEqual(pulled.commitSHA, forkHead)
        XCTAssertTrue(FileManager.default.fileExists(atPath: pulled.workTree.appendingPathComponent("fork.txt").path))

        // A later fetch prunes branches, but not the pull request's head, so a run still waiting finds it.
        _ = try fixture.commit("more on main", files: ["README.md": "version 3\n"])
        XCTAssertEqual(try checkout(forkHead).commitSHA, forkHead)
        let mirror = try GitMirror(repository: fixture.repository.path, mirrorsFolder: fixture.mirrors)
        XCTAssertEqual(try mirror.resolve(ref: "refs/pipe/fetched/pull/7/head").sha, forkHead)
    }

    func testOnlyPullAndMergeRequestHeadsAreFetchedOnTheirOwn() throws {
        XCTAssertEqual(
            try GitMirror.mirrorRef(forFetchRef: "refs/merge-requests/12/head"),
            "refs/pipe/fetched/merge-requests/12/head")
        for ref in [
            "refs/pull/*/head", "refs/heads/main", "refs/pull/07/head", "refs/pull/7/merge", "refs/pull/0/head",
            "refs/pull/7/head:refs/heads/main", "+refs/pull/7/head", "refs/pull/../head",
        ] {
            assertThrowsGitError(
                try GitCheckout.checkout(
                    repository: fixture.repository.path, ref: "main", into: fixture.path("runs/\(UUID())"),
                    mirrorsFolder: fixture.mirrors, fetchRef: ref)
            ) { error in
                guard case .invalidFetchRef(let refused, _) = error else {
                    return XCTFail("expected invalidFetchRef for \(ref), got \(error)")
                }
                XCTAssertEqual(refused, ref)
            }
        }
    }

    func testWorkTreeHoldsExactlyTheCommittedFiles() throws {
        try fixture.commit("tree", files: ["Sources/App/main.swift": "print(1)\n", ".gitignore": "*.log\n"])
        try fixture.write("README.md", "uncommitted edit\n")
        try fixture.write("untracked.txt", "not added\n")
        try fixture.write("staged.txt", "staged, not committed\n")
        try fixture.git("add", "staged.txt")
        try fixture.write("build.log", "ignored\n")
        let result = try checkout("HEAD")
        XCTAssertEqual(
            try relativeTree(of: result.workTree),
            [".gitignore", "README.md", "Sources/", "Sources/App/", "Sources/App/main.swift"])
        XCTAssertEqual(try readme(in: result), "version 2\n")
    }

    func testExecutableBitsAndSymlinksArePreserved() throws {
        try fixture.write("scripts/build.sh", "#!/bin/sh\necho built\n", executable: true)
        try fixture.write("data.txt", "plain\n")
        let manager = FileManager.default
        try manager.createSymbolicLink(
            atPath: fixture.repository.appendingPathComponent("link-to-data").path, withDestinationPath: "data.txt")
        try manager.createSymbolicLink(
            atPath: fixture.repository.appendingPathComponent("tools").path, withDestinationPath: "scripts")
        try fixture.commit("modes and links")
        let tree = try checkout("main").workTree

        func permissions(_ name: String) throws -> Int {
            try manager.attributesOfItem(atPath: tree.appendingPathComponent(name).path)[.posixPermissions] as! Int
        }
        XCTAssertEqual(try permissions("scripts/build.sh") & 0o111, 0o111, "executable bit kept")
        XCTAssertEqual(try permissions("data.txt") & 0o111, 0, "plain file not made executable")
        XCTAssertEqual(
            try manager.destinationOfSymbolicLink(atPath: tree.appendingPathComponent("link-to-data").path), "data.txt")
        XCTAssertEqual(
            try manager.destinationOfSymbolicLink(atPath: tree.appendingPathComponent("tools").path), "scripts")
        XCTAssertEqual(
            try manager.attributesOfItem(atPath: tree.appendingPathComponent("tools").path)[.type]
                as? FileAttributeType,
            .typeSymbolicLink)
    }

    func testRepositoryPathThatDoesNotExistIsAClearError() throws {
        let missing = fixture.path("no-such-repository")
        assertThrowsGitError(
            try GitCheckout.checkout(
                repository: missing.path, ref: "main", into: fixture.path("run"), mirrorsFolder: fixture.mirrors)
        ) { error in
            guard case .repositoryNotFound(let repository, let reason) = error else {
                return XCTFail("expected repositoryNotFound, got \(error)")
            }
            XCTAssertEqual(repository, missing.path)
            XCTAssertTrue(reason.contains("no such folder"), reason)
            XCTAssertTrue(error.description.contains(missing.path), error.description)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.mirrors.path), "nothing created")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.path("run").path), "nothing created")
    }

    func testFolderInsideARepositoryNamesItsTopFolder() throws {
        try fixture.commit("nested", files: ["sub/file.txt": "x\n"])
        assertThrowsGitError(
            try GitCheckout.resolveCommit(
                repository: fixture.repository.appendingPathComponent("sub").path, ref: "main",
                mirrorsFolder: fixture.mirrors)
        ) { error in
            guard case .repositoryNotFound(_, let reason) = error else {
                return XCTFail("expected repositoryNotFound, got \(error)")
            }
            XCTAssertTrue(reason.contains("inside the git repository"), reason)
            XCTAssertTrue(reason.contains(fixture.repository.lastPathComponent), reason)
        }
    }

    func testRepositoryWithoutCommitsIsAnEmptyRepositoryError() throws {
        let empty = fixture.path("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try fixture.git("init", "-q", in: empty)
        assertThrowsGitError(
            try GitCheckout.checkout(
                repository: empty.path, ref: "HEAD", into: fixture.path("run"), mirrorsFolder: fixture.mirrors)
        ) { error in
            XCTAssertEqual(error, .emptyRepository(repository: empty.path))
        }
    }

    func testTagOfATreeIsNotACommit() throws {
        try fixture.git("tag", "tree-tag", "main^{tree}")
        assertThrowsGitError(try checkout("tree-tag")) { error in
            XCTAssertEqual(error, .notACommit(ref: "tree-tag", repository: fixture.repository.path))
        }
    }

    func testRepositoryWithoutCommitsIsAnEmptyRepositoryErrorForAnyRef() throws {
        let empty = fixture.path("empty2")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try fixture.git("init", "-q", in: empty)
        assertThrowsGitError(
            try GitCheckout.resolveCommit(repository: empty.path, ref: "main", mirrorsFolder: fixture.mirrors)
        ) { error in
            XCTAssertEqual(error, .emptyRepository(repository: empty.path))
        }
    }

    func testNonEmptyDestinationIsRefusedAndLeftAlone() throws {
        let destination = fixture.path("occupied")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try "keep me".write(to: destination.appendingPathComponent("mine.txt"), atomically: true, encoding: .utf8)
        assertThrowsGitError(
            try GitCheckout.checkout(
                repository: fixture.repository.path, ref: "main", into: destination, mirrorsFolder: fixture.mirrors)
        ) { error in
            XCTAssertEqual(error, .destinationNotEmpty(path: destination.path))
        }
        XCTAssertEqual(try relativeTree(of: destination), ["mine.txt"])
    }

    func testResolveCommitFetchesAndResolvesWithoutAWorkTree() throws {
        XCTAssertEqual(
            try GitCheckout.resolveCommit(
                repository: fixture.repository.path, ref: "v1.0", mirrorsFolder: fixture.mirrors),
            ResolvedCommit(sha: first, resolvedRef: "refs/tags/v1.0"))
        let third = try fixture.commit("third")
        XCTAssertEqual(
            try GitCheckout.resolveCommit(
                repository: fixture.repository.path, ref: "main", mirrorsFolder: fixture.mirrors
            )
            .sha,
            third)
    }

    func testCancelledTokenStopsBeforeAnythingIsWritten() throws {
        let token = CancellationToken()
        token.cancel(reason: "stopped by the test")
        assertThrowsGitError(
            try GitCheckout.checkout(
                repository: fixture.repository.path, ref: "main", into: fixture.path("run"),
                mirrorsFolder: fixture.mirrors, cancellation: token)
        ) { error in
            guard case .cancelled = error else { return XCTFail("expected cancelled, got \(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.path("run").path))
        let mirrors = try FileManager.default.contentsOfDirectory(atPath: fixture.mirrors.path)
        XCTAssertEqual(mirrors.filter { !$0.hasSuffix(".lock") }, [], "no mirror or partial clone left")
    }

    func testConcurrentCheckoutsOfOneRepositoryShareOneMirror() throws {
        let results = ResultsBox()
        let group = DispatchGroup()
        for index in 0..<4 {
            DispatchQueue.global().async(group: group) {
                results.append(Result { try self.checkout("main", into: "parallel-\(index)") })
            }
        }
        group.wait()
        let outcomes = try results.values.map { try $0.get() }
        XCTAssertEqual(outcomes.count, 4)
        XCTAssertEqual(Set(outcomes.map(\.commitSHA)), [second])
        XCTAssertEqual(outcomes.filter { $0.mirrorUpdate.cloned }.count, 1, "cloned once, fetched by the others")
    }

    func testRepositoryOwnedByAnotherUserIsRefused() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to give a folder to another user") }
        let foreign = fixture.path("foreign")
        try fixture.git("clone", "-q", fixture.repository.path, foreign.path, in: fixture.root)
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: "/bin/chown")
        chown.arguments = ["-R", "65534:65534", foreign.path]
        try chown.run()
        chown.waitUntilExit()
        XCTAssertEqual(chown.terminationStatus, 0)
        assertThrowsGitError(
            try GitCheckout.checkout(
                repository: foreign.path, ref: "main", into: fixture.path("run"), mirrorsFolder: fixture.mirrors)
        ) { error in
            guard case .notOwnedByCurrentUser(let repository, _) = error else {
                return XCTFail("expected notOwnedByCurrentUser, got \(error)")
            }
            XCTAssertEqual(repository, foreign.path)
            XCTAssertTrue(error.description.contains("safe.directory"), error.description)
        }
    }
}

/// Collects results from several threads.
private final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<CheckoutResult, Error>] = []

    func append(_ result: Result<CheckoutResult, Error>) {
        lock.lock()
        stored.append(result)
        lock.unlock()
    }

    var values: [Result<CheckoutResult, Error>] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

import Foundation
import PipeGit
import XCTest

final class GitMirrorTests: XCTestCase {
    func testClonesOnceThenFetchesAndResolvesTheLatestState() throws {
        let fixture = try GitFixture()
        let first = try fixture.commit("first")
        let mirror = try GitMirror(repository: fixture.repository.path, mirrorsFolder: fixture.mirrors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path.path), "naming a mirror creates nothing")

        let cold = try mirror.update()
        XCTAssertTrue(cold.cloned)
        XCTAssertEqual(cold.remoteHeadSHA, first)
        XCTAssertEqual(cold.defaultBranch, "refs/heads/main")
        XCTAssertEqual(try mirror.resolve(ref: "main").sha, first)
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: mirror.path.appendingPathComponent("HEAD").path)[.type]
                as? FileAttributeType, .typeRegular, "a bare repository: HEAD at the top, no work tree")

        let second = try fixture.commit("second")
        XCTAssertEqual(try mirror.resolve(ref: "main").sha, first, "resolve reads the mirror as last fetched")
        let warm = try mirror.update()
        XCTAssertFalse(warm.cloned)
        XCTAssertEqual(warm.remoteHeadSHA, second)
        XCTAssertEqual(try mirror.resolve(ref: "main").sha, second)
    }

    func testAFetchBringsNewBranchesAndTagsAndPrunesDeletedOnes() throws {
        // Fetches use an in-memory remote with the mirror's refspecs (not the config's `origin`, whose lookup leaks
        // in libgit2 1.5): it must still fetch every kind of ref and prune.
        let fixture = try GitFixture()
        let first = try fixture.commit("first")
        try fixture.git("branch", "doomed")
        let mirror = try GitMirror(repository: fixture.repository.path, mirrorsFolder: fixture.mirrors)
        _ = try mirror.update()
        XCTAssertEqual(try mirror.resolve(ref: "doomed").sha, first)

        let second = try fixture.commit("second")
        try fixture.git("branch", "-D", "doomed")
        try fixture.git("branch", "feature/new")
        try fixture.git("tag", "v1.0")
        let warm = try mirror.update()
        XCTAssertFalse(warm.cloned)
        XCTAssertEqual(warm.remoteHeadSHA, second)
        XCTAssertEqual(try mirror.resolve(ref: "feature/new").sha, second)
        XCTAssertEqual(try mirror.resolve(ref: "v1.0").sha, second)
        XCTAssertThrowsError(try mirror.resolve(ref: "doomed"), "a branch deleted in the repository is pruned")
    }

    func testSameRepositoryGetsTheSameMirrorAndOthersTheirOwn() throws {
        let fixture = try GitFixture()
        try fixture.commit("first")
        let viaPath = try GitMirror(repository: fixture.repository.path, mirrorsFolder: fixture.mirrors)
        let viaURL = try GitMirror(repository: "file://" + fixture.repository.path, mirrorsFolder: fixture.mirrors)
        let viaDots = try GitMirror(
            repository: fixture.repository.path + "/../" + fixture.repository.lastPathComponent,
            mirrorsFolder: fixture.mirrors)
        XCTAssertEqual(viaPath.path, viaURL.path)
        XCTAssertEqual(viaPath.path, viaDots.path)
        XCTAssertTrue(viaPath.path.lastPathComponent.hasPrefix("source-"), viaPath.path.lastPathComponent)
        XCTAssertTrue(viaPath.path.lastPathComponent.hasSuffix(".git"), viaPath.path.lastPathComponent)

        let other = try GitFixture()
        try other.commit("other")
        let otherMirror = try GitMirror(repository: other.repository.path, mirrorsFolder: fixture.mirrors)
        XCTAssertNotEqual(otherMirror.path, viaPath.path, "same folder name, different repository")
    }

    func testDamagedMirrorAndAbandonedPartialClonesAreReplaced() throws {
        let fixture = try GitFixture()
        let first = try fixture.commit("first")
        let mirror = try GitMirror(repository: fixture.repository.path, mirrorsFolder: fixture.mirrors)
        try FileManager.default.createDirectory(at: mirror.path, withIntermediateDirectories: true)
        try "junk".write(to: mirror.path.appendingPathComponent("not-a-repository"), atomically: true, encoding: .utf8)
        let partial = fixture.mirrors.appendingPathComponent(".\(mirror.path.lastPathComponent).partial-1-2")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)

        let update = try mirror.update()
        XCTAssertTrue(update.cloned)
        XCTAssertEqual(try mirror.resolve(ref: "HEAD").sha, first)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: mirror.path.appendingPathComponent("not-a-repository").path))
    }

    func testUnreachableNetworkRepositoryIsALibgit2ErrorNamingIt() throws {
        let fixture = try GitFixture()
        // Port 9 on loopback: nothing listens, so the connection is refused at once (no traffic leaves the machine).
        let url = "http://127.0.0.1:9/nobody/app.git"
        let mirror = try GitMirror(repository: url, mirrorsFolder: fixture.mirrors)
        assertThrowsGitError(try mirror.update()) { error in
            guard case .libgit2(let operation, let repository, _, let message) = error else {
                return XCTFail("expected libgit2, got \(error)")
            }
            XCTAssertEqual(operation, "fetch")
            XCTAssertEqual(repository, url)
            XCTAssertFalse(message.isEmpty)
            XCTAssertTrue(error.description.contains(url), error.description)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.mirrors.path)
        XCTAssertEqual(left.filter { !$0.hasSuffix(".lock") }, [], "a failed first clone leaves no mirror behind")
    }
}

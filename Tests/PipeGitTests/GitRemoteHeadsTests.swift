import PipeGit
import XCTest

final class GitRemoteHeadsTests: XCTestCase {
    func testListsHEADBranchesAndTagsWithTheirCommits() throws {
        let fixture = try GitFixture()
        let first = try fixture.commit("first")
        try fixture.git("tag", "-a", "v1.0", "-m", "release")
        try fixture.git("tag", "light")
        let second = try fixture.commit("second")
        try fixture.git("branch", "stable", first)
        let tagObject = try fixture.git("rev-parse", "v1.0")

        let heads = try GitRemoteHeads.list(repository: fixture.repository.path)
        let byRef = Dictionary(heads.map { ($0.ref, $0.sha) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(heads.first?.ref, "HEAD")
        XCTAssertEqual(byRef["HEAD"], second)
        XCTAssertEqual(byRef["refs/heads/main"], second)
        XCTAssertEqual(byRef["refs/heads/stable"], first)
        XCTAssertEqual(byRef["refs/tags/light"], first)
        XCTAssertEqual(byRef["refs/tags/v1.0"], tagObject, "an annotated tag is listed as the tag object")
        XCTAssertEqual(byRef["refs/tags/v1.0^{}"], first, "and peeled to the commit it tags")
        XCTAssertEqual(
            Set(heads.map(\.ref)),
            ["HEAD", "refs/heads/main", "refs/heads/stable", "refs/tags/light", "refs/tags/v1.0", "refs/tags/v1.0^{}"])
    }

    func testSeesANewCommitWithoutAMirror() throws {
        let fixture = try GitFixture()
        try fixture.commit("first")
        let before = try GitRemoteHeads.list(repository: fixture.repository.path)
        let second = try fixture.commit("second")
        let after = try GitRemoteHeads.list(repository: fixture.repository.path)
        XCTAssertNotEqual(before.first { $0.ref == "refs/heads/main" }?.sha, second)
        XCTAssertEqual(after.first { $0.ref == "refs/heads/main" }?.sha, second)
    }

    func testMissingRepositoryIsAClearError() throws {
        let fixture = try GitFixture()
        let missing = fixture.path("gone")
        assertThrowsGitError(try GitRemoteHeads.list(repository: missing.path)) { error in
            guard case .repositoryNotFound = error else { return XCTFail("expected repositoryNotFound, got \(error)") }
        }
    }
}

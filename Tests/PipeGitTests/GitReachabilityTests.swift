import Foundation
import PipeCore
import PipeGit
import XCTest

/// Whether a commit is reachable from a protected ref, asked of a real mirror of a real repository.
final class GitReachabilityTests: XCTestCase {
    private var fixture: GitFixture!
    private var first = ""
    private var second = ""
    private var releaseFix = ""
    private var featureTip = ""
    private var detached = ""

    /// main: first → second. release/2.0: second → releaseFix. feature: second → featureTip. An annotated tag
    /// v1.0 on first; a commit `detached` on no branch, reachable only from the lightweight tag `scratch`.
    override func setUpWithError() throws {
        fixture = try GitFixture()
        first = try fixture.commit("first", files: ["README.md": "1\n"])
        try fixture.git("tag", "-a", "v1.0", "-m", "release 1.0")
        second = try fixture.commit("second", files: ["README.md": "2\n"])
        try fixture.git("checkout", "-q", "-b", "release/2.0")
        releaseFix = try fixture.commit("release fix", files: ["fix.txt": "x\n"])
        try fixture.git("checkout", "-q", "-b", "feature", "main")
        featureTip = try fixture.commit("feature", files: ["feature.txt": "y\n"])
        try fixture.git("checkout", "-q", "--detach", "main")
        detached = try fixture.commit("detached", files: ["scratch.txt": "z\n"])
        try fixture.git("tag", "scratch")
        try fixture.git("checkout", "-q", "main")
    }

    override func tearDown() { fixture = nil }

    private func protectedRef(of ref: String, _ patterns: [String]) throws -> String? {
        try GitCheckout.checkout(
            repository: fixture.repository.path, ref: ref, into: fixture.path("runs/\(UUID().uuidString)"),
            mirrorsFolder: fixture.mirrors, trustedRefs: patterns.map(TrustedRefPattern.init)
        ).protectedRef
    }

    func testTheTipAndTheAncestorsOfAProtectedBranchAreReachable() throws {
        XCTAssertEqual(try protectedRef(of: "main", ["main"]), "refs/heads/main")
        XCTAssertEqual(try protectedRef(of: first, ["main"]), "refs/heads/main")
    }

    func testACommitOnlyOnAnUnprotectedBranchIsNot() throws {
        XCTAssertNil(try protectedRef(of: "feature", ["main", "release/*"]))
        XCTAssertNil(try protectedRef(of: featureTip, ["main"]))
    }

    func testABranchPatternMatchesOneLevel() throws {
        XCTAssertEqual(try protectedRef(of: releaseFix, ["main", "release/*"]), "refs/heads/release/2.0")
        XCTAssertNil(try protectedRef(of: releaseFix, ["release"]))
    }

    func testTagPatternsPeelAnnotatedTagsAndNeedTheFullRefName() throws {
        XCTAssertEqual(try protectedRef(of: first, ["refs/tags/v*"]), "refs/tags/v1.0")
        XCTAssertNil(try protectedRef(of: second, ["refs/tags/v*"]), "v1.0 is older than second")
        // Without `refs/`, a pattern names branches: `scratch` is a tag, not a branch.
        XCTAssertNil(try protectedRef(of: detached, ["scratch", "main"]))
        XCTAssertEqual(try protectedRef(of: detached, ["refs/tags/*"]), "refs/tags/scratch")
    }

    func testNoPatternsProtectNothing() throws {
        XCTAssertNil(try protectedRef(of: "main", []))
    }

    /// A branch the repository's HEAD names is reached through its own name; the mirror's record of the remote's
    /// HEAD is Pipe's, never a protected ref, even for a pattern that matches every ref.
    func testPipesOwnRefsAreNeverProtected() throws {
        try fixture.git("checkout", "-q", "--detach", detached)
        XCTAssertNil(try protectedRef(of: "HEAD", ["refs/pipe/*", "refs/heads/main"]))
        XCTAssertEqual(try protectedRef(of: "HEAD", ["refs/**"]), "refs/tags/scratch")
    }

    /// A protected branch moved on by the repository is read as the mirror fetched it for this checkout.
    func testAnswersFollowTheRepositoryAsFetched() throws {
        XCTAssertNil(try protectedRef(of: featureTip, ["main"]))
        try fixture.git("merge", "-q", "--no-edit", "feature")
        XCTAssertEqual(try protectedRef(of: featureTip, ["main"]), "refs/heads/main")
    }
}

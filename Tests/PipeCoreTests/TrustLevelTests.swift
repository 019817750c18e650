import Foundation
import PipeCore
import XCTest

/// The trust rule (docs/security.md, "Trust levels"): which host runs which code, how a run's code gets its level,
/// and which hosts a run may then use.
final class TrustLevelTests: XCTestCase {
    private func host(_ name: String, _ trust: TrustLevel) -> HostConfig {
        HostConfig(name: name, address: "10.0.0.1", user: "ci", knownHostsFile: "k", trust: trust)
    }

    func testEveryPairOfHostAndCodeLevel() {
        let expected: [TrustLevel: Set<TrustLevel>] = [
            .untrusted: [.untrusted], .trusted: [.trusted, .release], .release: [.release],
        ]
        for hostLevel in TrustLevel.allCases {
            for code in TrustLevel.allCases {
                XCTAssertEqual(
                    hostLevel.hostRuns(code), expected[hostLevel]!.contains(code),
                    "a \(hostLevel) host running \(code) code")
            }
        }
        XCTAssertEqual(TrustLevel.untrusted.hostLevelsRunningIt, [.untrusted])
        XCTAssertEqual(TrustLevel.trusted.hostLevelsRunningIt, [.trusted])
        XCTAssertEqual(TrustLevel.release.hostLevelsRunningIt, [.trusted, .release])
    }

    func testHostsAreTrustedUnlessTheFileSaysOtherwise() {
        XCTAssertEqual(HostConfig(name: "m", address: "a", user: "u", knownHostsFile: "k").trust, .trusted)
    }

    func testCodeLevels() {
        let refs = [TrustedRefPattern("main"), TrustedRefPattern("release/*")]
        let sha = "3f2a9c1b0d4e5f60718293a4b5c6d7e8f9012345"
        let release = CodeTrust.decide(
            origin: .project, commit: sha, reachableFrom: "refs/heads/main", trustedRefs: refs)
        XCTAssertEqual(release.level, .release)
        XCTAssertEqual(release.reason, "commit 3f2a9c1b0d4e is reachable from refs/heads/main")
        let trusted = CodeTrust.decide(origin: .project, commit: sha, reachableFrom: nil, trustedRefs: refs)
        XCTAssertEqual(trusted.level, .trusted)
        XCTAssertEqual(trusted.reason, "commit 3f2a9c1b0d4e is not reachable from main, release/*")
        XCTAssertEqual(
            CodeTrust.decide(origin: .project, commit: sha, reachableFrom: nil, trustedRefs: []).level, .trusted)
        // A fork's commit stays untrusted even where the fork's own `main` reaches it.
        let fork = CodeTrust.decide(
            origin: .outside("the fork alice/app"), commit: sha, reachableFrom: "refs/heads/main", trustedRefs: refs)
        XCTAssertEqual(fork.level, .untrusted)
        XCTAssertTrue(fork.reason.contains("the fork alice/app"), fork.reason)
    }

    func testARepositoryChosenByAParameterIsOutsideTheProject() {
        XCTAssertEqual(RepositorySpec().origin, .project)
        XCTAssertEqual(RepositorySpec(location: "https://example.com/app.git").origin, .project)
        guard case .outside = RepositorySpec(location: "https://x/fork.git", locationIsInterpolated: true).origin else {
            return XCTFail("a url made from a parameter names a source the project does not")
        }
        let pipeline = Pipeline(name: "p", sourcePath: "p.yml", repository: RepositorySpec(), layers: [])
        let fromFork = RunRequest(
            pipeline: pipeline, projectDirectory: URL(fileURLWithPath: "/tmp"), requestedBy: "a",
            codeOrigin: .outside("a fork"))
        XCTAssertEqual(fromFork.effectiveOrigin, .outside("a fork"))
    }

    func testPatternsProtectBranchesOrFullRefs() {
        XCTAssertTrue(TrustedRefPattern("main").matches(fullRef: "refs/heads/main"))
        XCTAssertFalse(TrustedRefPattern("main").matches(fullRef: "refs/tags/main"))
        XCTAssertTrue(TrustedRefPattern("release/*").matches(fullRef: "refs/heads/release/2.0"))
        XCTAssertFalse(TrustedRefPattern("release/*").matches(fullRef: "refs/heads/release/2.0/hotfix"))
        XCTAssertTrue(TrustedRefPattern("refs/tags/*").matches(fullRef: "refs/tags/v1.0"))
        XCTAssertFalse(TrustedRefPattern("refs/tags/*").matches(fullRef: "refs/heads/v1.0"))
        XCTAssertNil(TrustedRefPattern.problem(with: "release/*"))
        for bad in ["", "/main", "main/", "a//b", "../main", "ma in", "a\u{1B}[2Jb", "a\\b"] {
            XCTAssertNotNil(TrustedRefPattern.problem(with: bad), bad)
        }
    }

    func testARefusalNamesTheHostTheLevelAndWhatToDo() {
        let hosts = [host("mac-1", .release), host("mac-2", .trusted), host("fork-1", .untrusted)]
        let code = CodeTrust(level: .trusted, reason: "commit abc123 is not reachable from main, release/*")
        XCTAssertThrowsError(try HostTrustCheck.allowed([hosts[0]], code: code, hosts: hosts)) { error in
            XCTAssertEqual(
                (error as? RequestError)?.message,
                "host mac-1 is `release`; this run's code is `trusted` (commit abc123 is not reachable from main, "
                    + "release/*): choose a host whose trust is `trusted` (mac-2), or run a commit reachable from a "
                    + "ref that project.yml's `trusted-refs:` lists")
        }
        let untrusted = CodeTrust(level: .untrusted, reason: "a fork")
        XCTAssertThrowsError(try HostTrustCheck.allowed(Array(hosts.prefix(2)), code: untrusted, hosts: hosts)) {
            let message = ($0 as? RequestError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("host mac-1 is `release`, host mac-2 is `trusted`;"), message)
            XCTAssertTrue(message.contains("`untrusted` (fork-1)"), message)
        }
        XCTAssertThrowsError(
            try HostTrustCheck.allowed([hosts[2]], code: code, hosts: [hosts[2]])
        ) {
            XCTAssertTrue(
                (($0 as? RequestError)?.message ?? "").contains("no host of the hosts file runs it; add one with"))
        }
    }

    func testAPoolKeepsOnlyTheHostsThatRunTheCode() throws {
        let pool = [host("a", .untrusted), host("b", .trusted), host("c", .release), host("d", .trusted)]
        func allowed(_ level: TrustLevel) throws -> [String] {
            try HostTrustCheck.allowed(pool, code: CodeTrust(level: level, reason: "r"), hosts: pool).map(\.name)
        }
        XCTAssertEqual(try allowed(.untrusted), ["a"])
        XCTAssertEqual(try allowed(.trusted), ["b", "d"])
        XCTAssertEqual(try allowed(.release), ["b", "c", "d"])
        XCTAssertEqual(
            HostTrustCheck.leftOut(pool, code: CodeTrust(level: .trusted, reason: "r")),
            [
                "host a left out: it is `untrusted` and this run's code is `trusted`",
                "host c left out: it is `release` and this run's code is `trusted`",
            ])
    }

    /// A host may be connected to while the checkout runs only when its answer cannot depend on the commit.
    func testWhenTheHostCanBeChosenBeforeTheCommitIsKnown() {
        let trusted = host("t", .trusted)
        let release = host("r", .release)
        let untrusted = host("u", .untrusted)
        let refs = [TrustedRefPattern("main")]
        XCTAssertTrue(HostTrustCheck.decidedBeforeCheckout([trusted], origin: .project, trustedRefs: refs))
        XCTAssertTrue(HostTrustCheck.decidedBeforeCheckout([trusted, untrusted], origin: .project, trustedRefs: refs))
        XCTAssertFalse(HostTrustCheck.decidedBeforeCheckout([trusted, release], origin: .project, trustedRefs: refs))
        XCTAssertFalse(HostTrustCheck.decidedBeforeCheckout([release], origin: .project, trustedRefs: []))
        XCTAssertFalse(HostTrustCheck.decidedBeforeCheckout([untrusted], origin: .project, trustedRefs: refs))
        XCTAssertTrue(
            HostTrustCheck.decidedBeforeCheckout([untrusted, trusted], origin: .outside("f"), trustedRefs: refs))
    }

    func testTheControllerPlansOnlyHostsThatCanRunTheCode() {
        let pool = [host("u", .untrusted), host("t", .trusted), host("r", .release)]
        XCTAssertEqual(
            HostTrustCheck.plausible(pool, origin: .project, trustedRefs: []).map(\.name), ["t"])
        XCTAssertEqual(
            HostTrustCheck.plausible(pool, origin: .project, trustedRefs: [TrustedRefPattern("main")]).map(\.name),
            ["t", "r"])
        XCTAssertEqual(HostTrustCheck.plausible(pool, origin: .outside("f"), trustedRefs: []).map(\.name), ["u"])
        // None fits: the run starts and the engine refuses it with the reason, rather than waiting for ever.
        XCTAssertEqual(
            HostTrustCheck.plausible([host("r", .release)], origin: .project, trustedRefs: []).map(\.name), ["r"])
    }
}

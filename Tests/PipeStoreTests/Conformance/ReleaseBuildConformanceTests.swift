import Foundation
import PipeCore
import PipeStore
import XCTest

/// Release builds and the sign-offs bound to them: saved, replaced by a retry, found by run, commit and `.ipa`
/// digest, with the same answers from both backends.
final class ReleaseBuildConformanceTests: ConformanceTestCase {
    private let commit = String(repeating: "ab", count: 20)
    private let ipa = String(repeating: "e", count: 64)

    private func runWithArchive(_ store: StoreBackend.Store, _ runID: String, commit: String) throws {
        try store.createRun(
            StoreFixtures.newRun(
                runID, layers: [("unit", .merge), ("archive", .release), ("release-checklist", .release)],
                commit: commit),
            owner: StoreFixtures.owner())
    }

    func testReleaseBuildsAreFoundByRunCommitAndIPADigest() throws {
        let first = StoreFixtures.runID(10)
        let second = StoreFixtures.runID(70)
        let otherCommit = String(repeating: "cd", count: 20)
        let answers = try onBothBackends { store, backend -> String in
            try runWithArchive(store, first, commit: commit)
            try runWithArchive(store, second, commit: otherCommit)
            let retried = StoreFixtures.releaseBuild(runID: first, commit: commit, ipa: ipa, build: "41", at: 5)
            try store.saveReleaseBuild(StoreFixtures.releaseBuild(runID: first, commit: commit, ipa: "00", at: 1))
            try store.saveReleaseBuild(retried)
            let other = StoreFixtures.releaseBuild(
                runID: second, commit: otherCommit, ipa: String(repeating: "f", count: 64), at: 9)
            try store.saveReleaseBuild(other)

            XCTAssertEqual(try store.releaseBuilds(runID: first), [retried], "a retry replaces: \(backend)")
            XCTAssertEqual(try store.releaseBuilds(commit: commit.uppercased()), [retried], backend.rawValue)
            XCTAssertEqual(try store.releaseBuilds(ipaSHA256: ipa.uppercased()), [retried], backend.rawValue)
            XCTAssertEqual(try store.releaseBuilds(ipaSHA256: "00"), [], "the replaced digest is gone: \(backend)")
            XCTAssertEqual(try store.releaseBuilds(commit: otherCommit), [other], backend.rawValue)
            XCTAssertEqual(try store.releaseBuilds(runID: "20261118-000000-nope"), [], backend.rawValue)
            XCTAssertThrowsError(
                try store.saveReleaseBuild(
                    StoreFixtures.releaseBuild(runID: "20261118-000000-nope", commit: commit, ipa: ipa)),
                "a build of no run is refused: \(backend)")
            return "\(try store.releaseBuilds(runID: first))"
        }
        assertSame(answers, "the release builds")
    }

    func testSignoffsKeepTheirFieldsAndTheBuildTheyChecked() throws {
        let runID = StoreFixtures.runID(130)
        let answers = try onBothBackends { store, backend -> String in
            try runWithArchive(store, runID, commit: commit)
            try store.finishLayer(
                runID: runID, layer: "release-checklist", outcome: .awaitingSignoff, evidence: [], at: Date())
            let fields = ["os_version": "18.2", "device": "iPhone 16", "app_build": "42"]
            let signed = try store.appendSignoff(
                SignoffRequest(
                    runID: runID, layer: "release-checklist", decision: .signedOff, signedBy: "erin",
                    at: StoreFixtures.epoch, fields: fields, buildSHA256: ipa.uppercased()))
            XCTAssertEqual(signed.fields, fields, backend.rawValue)
            XCTAssertEqual(signed.buildSHA256, ipa, "digests are kept lowercase: \(backend)")
            XCTAssertEqual(try store.signoffs(runID: runID), [signed], backend.rawValue)
            // Fields sorted: a dictionary's description has no fixed order.
            return try store.signoffs(runID: runID).map { signoff in
                "\(signoff.id) \(signoff.layer) \(signoff.decision) \(signoff.signedBy) \(signoff.at) "
                    + "\((signoff.fields ?? [:]).sorted { $0.key < $1.key }) \(signoff.buildSHA256 ?? "-")"
            }.joined(separator: "\n")
        }
        assertSame(answers, "the sign-offs")
    }
}

import Foundation
import PipeCore
import PipeStore
import XCTest

/// `pipe verify`'s logic over records in a real store: a release run of a commit (a merge layer, the archive layer,
/// a checklist that needs it), its release build and its sign-offs.
final class ReleaseVerificationTests: StoreTestCase {
    private let commit = String(repeating: "ab", count: 20)
    private let ipa = String(repeating: "e", count: 64)
    private var store: SQLiteRunStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try openStore()
    }

    /// A finished release run: `unit` (merge), `archive` and `release-checklist` (release, needs archive).
    @discardableResult
    private func releaseRun(
        _ offset: Int, unit: LayerOutcome = .passed, checklistNeeds: [String] = ["archive"], commit: String? = nil
    ) throws -> String {
        let runID = StoreFixtures.runID(offset)
        var record = StoreFixtures.finishedRun(runID, pipeline: "release", commit: commit ?? self.commit)
        record.layers = [
            .init(name: "unit", plugin: "xcodebuild-test", gate: .merge, outcome: unit, evidence: ["10 tests"]),
            .init(name: "archive", plugin: "xcodebuild-archive", gate: .release, needs: ["unit"], outcome: .passed),
            .init(
                name: "release-checklist", plugin: "checklist", gate: .release, needs: checklistNeeds,
                outcome: .awaitingSignoff),
        ]
        record.layers[0].attempts = [
            .init(
                attempt: 1, outcome: unit, startedAt: record.startedAt,
                artifacts: [
                    ArtifactRecord(
                        kind: .resultBundle, path: "artifacts/\(runID)/unit/unit.xcresult.tar", bytes: 2_048,
                        sha256: String(repeating: "b", count: 64))
                ])
        ]
        try store.createRun(record, owner: StoreFixtures.owner())
        try store.saveReleaseBuild(StoreFixtures.releaseBuild(runID: runID, commit: commit ?? self.commit, ipa: ipa))
        return runID
    }

    private func sign(_ runID: String, _ decision: SignoffDecision = .signedOff, build: String?) throws {
        try store.appendSignoff(
            SignoffRequest(
                runID: runID, layer: "release-checklist", decision: decision, signedBy: "erin",
                at: StoreFixtures.epoch.addingTimeInterval(600),
                fields: ["os_version": "18.2", "device": "iPhone 16", "app_build": "42"], buildSHA256: build))
    }

    private func verify(_ runID: String) throws -> ReleaseVerification {
        let build = try XCTUnwrap(try store.releaseBuilds(runID: runID).last)
        let others = try store.listRuns(RunFilter()).filter { $0.commit == build.commit && $0.runID != runID }
        return ReleaseVerification.verify(
            "run \(runID)", build: build, buildRun: try store.run(runID),
            commitRuns: try others.compactMap { try store.run($0.runID) })
    }

    func testYesOnlyAfterTheChecklistIsSignedAgainstThisBuild() throws {
        let runID = try releaseRun(0)
        let pending = try verify(runID)
        XCTAssertEqual(pending.exitCode, 4, "\(pending.missing)")
        XCTAssertEqual(
            pending.missing, ["release layer release-checklist of run \(runID): awaiting sign-off"])

        try sign(runID, build: ipa)
        let yes = try verify(runID)
        XCTAssertEqual(yes.exitCode, 0, "\(yes.missing)")
        XCTAssertTrue(yes.releasable)
        XCTAssertEqual(yes.missing, [])
        XCTAssertEqual(yes.gates.map { "\($0.gate.rawValue) \($0.verdict)" }, ["merge passed", "release passed"])
        XCTAssertEqual(yes.bundles.map(\.sha256), [String(repeating: "b", count: 64)])
        let signoff = try XCTUnwrap(yes.signoffs.first)
        XCTAssertEqual(
            [signoff.signedBy, signoff.osVersion, signoff.device, signoff.appBuild],
            ["erin", "18.2", "iPhone 16", "42"])
        XCTAssertTrue(signoff.checkedThisBuild)
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: try yes.jsonData()) as? [String: Any])
        XCTAssertEqual(json["releasable"] as? Bool, true)
        XCTAssertEqual((json["build"] as? [String: Any])?["commit"] as? String, commit)
    }

    func testASignoffOfAnotherBuildLeavesItPending() throws {
        let runID = try releaseRun(60)
        let other = String(repeating: "0", count: 64)
        try sign(runID, build: other)
        let verification = try verify(runID)
        XCTAssertEqual(verification.exitCode, 4)
        XCTAssertEqual(
            verification.missing,
            [
                "release layer release-checklist was signed by erin against build \(other), not this build "
                    + "(\(ipa)): sign it again against this build"
            ])
        try sign(runID, build: nil)
        XCTAssertTrue(try verify(runID).missing[0].contains("against no recorded build"))
    }

    func testAFailedMergeGateOrARejectionSaysNoWithExit1() throws {
        let failed = try verify(try releaseRun(120, unit: .testsFailed))
        XCTAssertEqual(failed.exitCode, 1)
        XCTAssertTrue(
            failed.missing.contains { $0.contains("merge gate at commit \(commit)") && $0.contains("failed: unit") },
            "\(failed.missing)")

        // A rejection, even with a passing run of the commit elsewhere.
        let store = self.store!
        let rejected = try releaseRun(180)
        try store.appendSignoff(
            SignoffRequest(
                runID: rejected, layer: "release-checklist", decision: .rejected, signedBy: "frank",
                buildSHA256: ipa))
        let verification = try verify(rejected)
        XCTAssertEqual(verification.exitCode, 1, "\(verification.missing)")
        XCTAssertEqual(verification.missing.count, 1, "\(verification.missing)")
        XCTAssertTrue(
            verification.missing[0].hasPrefix(
                "release layer release-checklist of run \(rejected): rejected: rejected by frank"),
            "\(verification.missing)")
    }

    func testAChecklistThatDoesNotNeedTheArchiveCannotVouchForTheBuild() throws {
        let runID = try releaseRun(240, checklistNeeds: ["unit"])
        try sign(runID, build: ipa)
        let verification = try verify(runID)
        XCTAssertEqual(verification.exitCode, 3)
        XCTAssertTrue(verification.missing[0].hasPrefix("no release layer of run \(runID) needs: archive"))
        let unknown = ReleaseVerification.unknown("the .ipa x", because: "Pipe has no record of it")
        XCTAssertEqual([unknown.exitCode], [3])
    }
}

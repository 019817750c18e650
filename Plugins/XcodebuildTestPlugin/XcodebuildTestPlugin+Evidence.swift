import Foundation
import PipeApple
import PipeBasics
import PipeCore

extension XcodebuildTestPlugin {
    /// Brings back the folder `BundleEvidence.script` wrote beside the bundle and reads it; a folder past the limit
    /// or holding what extraction refuses is the host's refusal, as for the bundle.
    func pullBackEvidence(
        bundle: ResultBundlePath, logTests: [TestCaseResult], context: LayerContext,
        legacy: LegacyBundleEvidence.Listing? = nil
    ) -> (evidence: BundleEvidence, refusal: RemoteError?) {
        let remote = BundleEvidence.remoteFolder(of: bundle)
        let pulled = context.host.pullBack(
            remote, into: context.localArtifacts, cancellation: context.cancellation, alongside: nil,
            commandTimeoutSeconds: 30, limitBytes: min(BundleEvidence.limitBytes, context.layer.artifactLimitBytes))
        var evidence = BundleEvidence()
        switch pulled.transfer {
        case .success(let transfer):
            let folder = URL(fileURLWithPath: transfer.destination)
            evidence = BundleEvidence.read(
                folder, logTests: logTests, measuresCoverage: context.layer.coverage != nil,
                projectDirectory: context.projectDirectory, legacy: legacy)
            // The folder as it came, refused parts included, is the run's like the bundle; the files Pipe reads
            // from it are recorded again on their own.
            evidence.artifacts.insert(
                ArtifactRecord(
                    kind: .other, path: context.projectRelativePath(folder), bytes: transfer.bytes,
                    sha256: transfer.sha256), at: 0)
        case .failure(let error as RemoteError) where error.kind == .refusedContent:
            return (evidence, error)
        case .failure(let error):
            if !pulled.missing {
                evidence.notes.append(
                    "the tests, coverage and attachments read on the host did not come back: \(error)")
            }
        }
        return (evidence, nil)
    }

    /// A layer asking for coverage gets each target's lines as facts (the store keeps them, so the next run of the
    /// branch can show the change); a target below the minimum fails a layer whose tests passed, and a named target
    /// missing from the report, or no report at all, leaves it unjudged: the pipeline or the host is at fault, not
    /// the app.
    static func judgeCoverage(
        _ report: XccovReport?, against requirement: CoverageRequirement, result: inout LayerResult
    ) {
        let judgeable: Set<LayerOutcome> = [.passed, .flaky]
        guard let report else {
            guard requirement.minimumPercent != nil else { return }
            let line =
                "coverage was asked for but the host's `xcrun xccov view --report --json` gave no report, so the "
                + "minimum could not be checked; check that the scheme gathers coverage for its test action"
            result.evidence.append(line)
            if judgeable.contains(result.outcome) { result.outcome = .hostConfig }
            return
        }
        let verdict = CoverageVerdict.check(report, against: requirement)
        result.facts.merge(verdict.facts) { plugin, _ in plugin }
        result.evidence.append(
            "coverage: "
                + (verdict.targets.isEmpty
                    ? "no targets measured" : verdict.targets.map(\.text).joined(separator: ", ")))
        if let missing = verdict.missingTargetsEvidence(reportTargets: report.targets.map(\.name)) {
            result.evidence.append(missing)
            if judgeable.contains(result.outcome) { result.outcome = .hostConfig }
            return
        }
        guard !verdict.shortfalls.isEmpty else { return }
        if judgeable.contains(result.outcome) {
            result.outcome = .testsFailed
            result.evidence = verdict.shortfalls + result.evidence
        } else {
            result.evidence += verdict.shortfalls
        }
    }
}

extension XcodebuildTestPlugin {
    /// Tests Xcode ran again in the same xcodebuild (`-retry-tests-on-failure`): a layer that passed in the end after
    /// a test failed is flaky, never passed, and names the tests; failed runs of tests that failed in the end change
    /// nothing (the layer failed).
    static func judgeRetriedTests(_ result: inout LayerResult) {
        guard result.outcome == .passed else { return }
        let failedBefore = Set(result.earlierRuns.filter { $0.status == .failed }.map(\.identifier))
        let flaky = result.tests.filter { $0.status == .passed && failedBefore.contains($0.identifier) }
        guard !flaky.isEmpty else { return }
        result.outcome = .flaky
        let names = flaky.prefix(5).map(\.identifier).joined(separator: ", ")
        let more = flaky.count > 5 ? " and \(flaky.count - 5) more" : ""
        result.evidence.insert(
            "flaky: \(names)\(more) failed and then passed when Xcode ran \(flaky.count == 1 ? "it" : "them") again "
                + "(retry.tests, -retry-tests-on-failure)", at: 0)
    }
}

import Foundation

/// `pipe verify`'s answer to "may this build be released?", with what it rests on: yes (exit 0) only when the build
/// was recorded by a run of the commit, the merge gate passed at that commit, and every release checklist of the
/// build's run that `needs:` the build's layer was signed off against the build's SHA-256. Otherwise each missing
/// piece, with the gate's exit codes: 1 failed or rejected, 3 not judged (an unknown build included), 4 sign-offs
/// pending. The gates are judged by `GateEvaluation`, as `pipe gate` judges them.
public struct ReleaseVerification: Sendable, Equatable, Codable {
    /// What was asked about: `commit <sha>`, `run <id>` or `the .ipa <path>`.
    public var subject: String
    public var commit: String?
    public var build: ReleaseBuild?
    public var exitCode: Int32
    public var releasable: Bool { exitCode == 0 }
    /// What stands between the build and a release, one line each; empty when releasable.
    public var missing: [String]
    public var gates: [GateVerdict]
    public var bundles: [Bundle]
    public var signoffs: [SignoffFacts]
    /// Other release builds of the same commit (`<run>/<layer>`), newest last.
    public var otherBuilds: [String]

    /// One gate judged over one run.
    public struct GateVerdict: Sendable, Equatable, Codable {
        public var runID: String
        public var pipeline: String
        public var gate: Gate
        public var verdict: String
        public var exitCode: Int32
        public var headline: String
    }

    /// An automated layer's artifact, with its digest.
    public struct Bundle: Sendable, Equatable, Codable {
        public var runID: String
        public var layer: String
        public var kind: String
        public var path: String
        public var bytes: Int64?
        public var sha256: String?
    }

    /// A sign-off of the build's run: who, when, on what, which build, and the result.
    public struct SignoffFacts: Sendable, Equatable, Codable {
        public var layer: String
        public var decision: SignoffDecision
        public var signedBy: String
        public var at: Date
        public var osVersion: String?
        public var device: String?
        public var appBuild: String?
        public var buildSHA256: String?
        /// Whether it was made against this build's SHA-256.
        public var checkedThisBuild: Bool
    }

    /// What an unknown build gets: not judged (3).
    public static func unknown(_ subject: String, commit: String? = nil, because reason: String) -> Self {
        ReleaseVerification(
            subject: subject, commit: commit, build: nil, exitCode: 3, missing: [reason], gates: [], bundles: [],
            signoffs: [], otherBuilds: [])
    }

    /// Verifies `build`, recorded by `buildRun`; `commitRuns` are the store's other runs of its commit, newest first.
    public static func verify(
        _ subject: String, build: ReleaseBuild, buildRun: StoredRun?, commitRuns: [StoredRun],
        otherBuilds: [ReleaseBuild] = [], flakyPolicy: (RunRecord) -> FlakyPolicy = { _ in .allow }
    ) -> Self {
        var result = ReleaseVerification(
            subject: subject, commit: build.commit, build: build, exitCode: 0, missing: [], gates: [], bundles: [],
            signoffs: [],
            otherBuilds: otherBuilds.filter { $0.runID != build.runID || $0.layer != build.layer }.map {
                "\($0.runID)/\($0.layer)"
            })
        guard let buildRun else {
            result.fail(3, "run \(build.runID), which recorded this build, is no longer in the run store")
            return result
        }
        let record = buildRun.record
        if record.commit?.lowercased() != build.commit.lowercased() {
            result.fail(
                1,
                "the build names commit \(build.commit) but its run \(record.runID) checked out "
                    + (record.commit ?? "no commit"))
        }
        let runs = [buildRun] + commitRuns.filter { $0.record.runID != record.runID }
        result.judgeMergeGate(runs, flakyPolicy: flakyPolicy)
        let release = GateEvaluation.evaluate(.release, record: record, flakyPolicy: flakyPolicy(record))
        result.gates.append(GateVerdict(record, release))
        if let problem = release.runProblem { result.fail(3, "run \(record.runID): \(problem)") }
        let codes: [GateEvaluation.LayerVerdict.Standing: Int32] = [.fails: 1, .couldNotJudge: 3, .pending: 4]
        for layer in release.layers where layer.gate == .release {
            guard let code = codes[layer.standing] else { continue }
            result.fail(code, "release layer \(layer.name) of run \(record.runID): \(layer.reason)")
        }
        result.checkSignoffs(buildRun, build: build)
        result.bundles = runs.flatMap { run in
            run.record.layers.filter { $0.gate == .merge }.flatMap { layer in
                layer.attempts.flatMap(\.artifacts).map {
                    Bundle(
                        runID: run.record.runID, layer: layer.name, kind: $0.kind.rawValue, path: $0.path,
                        bytes: $0.bytes, sha256: $0.sha256)
                }
            }
        }
        return result
    }

    /// The merge gate passes at the commit when it passes in some run of it; else the build's own run's verdict (or
    /// the newest run's, when the build's run has no merge layers) says what is missing.
    private mutating func judgeMergeGate(_ runs: [StoredRun], flakyPolicy: (RunRecord) -> FlakyPolicy) {
        let judged = runs.filter { $0.record.layers.contains { $0.gate == .merge } }.map { run in
            (run.record, GateEvaluation.evaluate(.merge, record: run.record, flakyPolicy: flakyPolicy(run.record)))
        }
        gates += judged.map { GateVerdict($0.0, $0.1) }
        guard !judged.contains(where: { $0.1.verdict == .passed }) else { return }
        guard let (record, evaluation) = judged.first else {
            fail(3, "no run of commit \(commit ?? "?") has merge layers: the merge gate was never judged there")
            return
        }
        fail(
            evaluation.verdict.exitCode,
            "merge gate at commit \(commit ?? "?"), run \(record.runID): "
                + evaluation.headline)
    }

    /// Every release checklist that needs the build's layer must be signed off against its SHA-256.
    private mutating func checkSignoffs(_ run: StoredRun, build: ReleaseBuild) {
        let digest = build.shipped?.sha256.lowercased()
        signoffs = run.signoffs.map { signoff in
            SignoffFacts(
                layer: signoff.layer, decision: signoff.decision, signedBy: signoff.signedBy, at: signoff.at,
                osVersion: signoff.fields?["os_version"], device: signoff.fields?["device"],
                appBuild: signoff.fields?["app_build"], buildSHA256: signoff.buildSHA256,
                checkedThisBuild: digest != nil && signoff.buildSHA256?.lowercased() == digest)
        }
        let checklists = run.record.layers.filter { $0.gate == .release && $0.needs.contains(build.layer) }
        guard !checklists.isEmpty else {
            fail(
                3,
                "no release layer of run \(run.record.runID) needs: \(build.layer), so no sign-off was made "
                    + "against this build; add a checklist with `needs: [\(build.layer)]`")
            return
        }
        for checklist in checklists {
            guard let latest = signoffs.last(where: { $0.layer == checklist.name }), latest.decision == .signedOff
            else { continue }  // unsigned or rejected: the release gate above already says so
            guard latest.checkedThisBuild else {
                let other = latest.buildSHA256.map { "build \($0)" } ?? "no recorded build"
                fail(
                    4,
                    "release layer \(checklist.name) was signed by \(latest.signedBy) against \(other), not this "
                        + "build (\(digest ?? "no digest")): sign it again against this build")
                continue
            }
        }
    }

    /// Notes what is missing; the exit code keeps the gravest: 1 over 3 over 4 over 0.
    private mutating func fail(_ code: Int32, _ reason: String) {
        missing.append(reason)
        let rank: [Int32: Int] = [0: 0, 4: 1, 3: 2, 1: 3]
        if rank[code, default: 2] > rank[exitCode, default: 0] { exitCode = code }
    }
}

extension ReleaseVerification.GateVerdict {
    init(_ record: RunRecord, _ evaluation: GateEvaluation) {
        self.init(
            runID: record.runID, pipeline: record.pipeline, gate: evaluation.gate, verdict: evaluation.verdict.rawValue,
            exitCode: evaluation.verdict.exitCode, headline: evaluation.headline)
    }
}

extension ReleaseVerification {
    /// `pipe verify --json` and `verification.json`: sorted keys, UTC times.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(JSONShape(self))
        data.append(0x0A)
        return data
    }

    /// The record with its answer spelled out, so a reader of the file need not know the exit codes.
    private struct JSONShape: Encodable {
        var verification: ReleaseVerification
        init(_ verification: ReleaseVerification) { self.verification = verification }

        enum Keys: String, CodingKey { case releasable, question }

        func encode(to encoder: any Encoder) throws {
            try verification.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(verification.releasable, forKey: .releasable)
            try container.encode("may this build be released?", forKey: .question)
        }
    }
}

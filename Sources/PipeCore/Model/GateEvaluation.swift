/// A gate's verdict over one run: whether the `merge` or `release` gate (with the gates before it) passes, and for
/// each of its layers why.
///
/// A gate passes when each of its layers is `passed`, `flaky` (unless the pipeline says `flaky: block`) or
/// `signed-off`. The verdict's exit code (`pipe gate`) is 1 when a layer failed or was rejected, else 3 when a layer
/// could not be judged (`host-config`, `infrastructure`, `plugin-error`, `cancelled`, `skipped`, not run) or the run
/// has not finished, else 4 when only sign-offs are pending, else 0. A proven failure wins over everything: a
/// release cannot pass over a failed layer, however the rest went.
///
/// Pure: built from a run's layers and status, so the CLI, the controller and chat-ops judge a run the same way.
public struct GateEvaluation: Sendable, Equatable {
    /// The gate asked about.
    public var gate: Gate
    /// The gates judged: `gate` and every gate before it (`release` includes `merge`).
    public var gates: [Gate]
    public var verdict: Verdict
    /// Every layer of the judged gates, in run order, with its verdict and the reason.
    public var layers: [LayerVerdict]
    /// Why the run as a whole cannot be judged (still running, cancelled, interrupted), when it cannot.
    public var runProblem: String?

    /// How a gate stands.
    public enum Verdict: String, Sendable, Equatable, CaseIterable {
        case passed
        /// A layer failed (tests, build, timeout, flaky under `flaky: block`) or its sign-off was a rejection.
        case failed
        /// A layer could not be judged, or the run has not finished.
        case couldNotJudge = "could-not-judge"
        /// Everything else passed; sign-offs are still awaited.
        case pendingSignoff = "pending-signoff"

        /// `pipe gate`'s exit code for this verdict: 0, 1, 3 or 4.
        public var exitCode: Int32 {
            switch self {
            case .passed: return 0
            case .failed: return 1
            case .couldNotJudge: return 3
            case .pendingSignoff: return 4
            }
        }
    }

    /// One layer as the gate sees it.
    public struct LayerVerdict: Sendable, Equatable {
        public enum Standing: String, Sendable, Equatable {
            case passes
            case fails
            case couldNotJudge = "could-not-judge"
            case pending
        }

        public var name: String
        public var gate: Gate
        /// `nil`: the layer did not run (or has not ended).
        public var outcome: LayerOutcome?
        public var standing: Standing
        /// One line: the outcome and the first piece of evidence, e.g. `tests-failed: 2 tests failed`.
        public var reason: String

        public init(name: String, gate: Gate, outcome: LayerOutcome?, standing: Standing, reason: String) {
            self.name = name
            self.gate = gate
            self.outcome = outcome
            self.standing = standing
            self.reason = reason
        }
    }

    /// A layer of a run, as the evaluation needs it.
    public struct Layer: Sendable, Equatable {
        public var name: String
        public var gate: Gate
        public var outcome: LayerOutcome?
        public var evidence: [String]

        public init(name: String, gate: Gate, outcome: LayerOutcome?, evidence: [String] = []) {
            self.name = name
            self.gate = gate
            self.outcome = outcome
            self.evidence = evidence
        }
    }

    public init(gate: Gate, gates: [Gate], verdict: Verdict, layers: [LayerVerdict], runProblem: String?) {
        self.gate = gate
        self.gates = gates
        self.verdict = verdict
        self.layers = layers
        self.runProblem = runProblem
    }

    /// Judges `gate` (and the gates before it) over a run's layers.
    public static func evaluate(
        _ gate: Gate, runStatus: RunStatus, layers: [Layer], flakyPolicy: FlakyPolicy = .allow
    ) -> GateEvaluation {
        let gates = Array(Gate.allCases.prefix { $0 != gate }) + [gate]
        let judged = layers.filter { gates.contains($0.gate) }.map { judge($0, flakyPolicy: flakyPolicy) }
        let runProblem: String?
        switch runStatus {
        case .finished: runProblem = nil
        case .queued, .running: runProblem = "the run is still \(runStatus.rawValue): judge it once it has finished"
        case .cancelled: runProblem = "the run was cancelled before it finished"
        case .interrupted: runProblem = "the run was interrupted (its coordinator died) before it finished"
        }
        let standings = judged.map(\.standing)
        let verdict: Verdict
        if standings.contains(.fails) {
            verdict = .failed
        } else if runProblem != nil || standings.contains(.couldNotJudge) {
            verdict = .couldNotJudge
        } else if standings.contains(.pending) {
            verdict = .pendingSignoff
        } else {
            verdict = .passed
        }
        return GateEvaluation(gate: gate, gates: gates, verdict: verdict, layers: judged, runProblem: runProblem)
    }

    /// Judges `gate` over a run record (`summary.json`, or the store's copy of it).
    public static func evaluate(_ gate: Gate, record: RunRecord, flakyPolicy: FlakyPolicy = .allow) -> GateEvaluation {
        evaluate(
            gate, runStatus: record.status,
            layers: record.layers.map {
                Layer(name: $0.name, gate: $0.gate, outcome: $0.outcome, evidence: $0.evidence)
            },
            flakyPolicy: flakyPolicy)
    }

    private static func judge(_ layer: Layer, flakyPolicy: FlakyPolicy) -> LayerVerdict {
        func verdict(_ standing: LayerVerdict.Standing, _ reason: String) -> LayerVerdict {
            LayerVerdict(name: layer.name, gate: layer.gate, outcome: layer.outcome, standing: standing, reason: reason)
        }
        let because = layer.evidence.first.map { ": \($0)" } ?? ""
        guard let outcome = layer.outcome else {
            return verdict(.couldNotJudge, "not run")
        }
        switch outcome {
        case .passed, .signedOff:
            return verdict(.passes, outcome.rawValue + because)
        case .flaky:
            if flakyPolicy == .block {
                return verdict(.fails, "flaky, and the pipeline says `flaky: block`" + because)
            }
            return verdict(.passes, "flaky (allowed)" + because)
        case .testsFailed, .buildFailed, .timedOut, .rejected:
            return verdict(.fails, outcome.rawValue + because)
        case .hostConfig, .infrastructure, .pluginError, .cancelled, .skipped:
            return verdict(.couldNotJudge, outcome.rawValue + because)
        case .awaitingSignoff:
            return verdict(.pending, "awaiting sign-off")
        }
    }

    /// The layers that decide the verdict (the failed ones for `failed`, …); empty when the gate passed.
    public var decidingLayers: [LayerVerdict] {
        switch verdict {
        case .passed: return []
        case .failed: return layers.filter { $0.standing == .fails }
        case .couldNotJudge: return layers.filter { $0.standing == .couldNotJudge }
        case .pendingSignoff: return layers.filter { $0.standing == .pending }
        }
    }

    /// One line, e.g. `release gate: pending sign-off (shortcuts)`.
    public var headline: String {
        let names = decidingLayers.map(\.name).joined(separator: ", ")
        let scope = gates.count > 1 ? " (with \(gates.dropLast().map(\.rawValue).joined(separator: ", ")))" : ""
        let subject = "\(gate.rawValue) gate\(scope)"
        switch verdict {
        case .passed:
            return layers.isEmpty ? "\(subject) passed (no layers)" : "\(subject) passed"
        case .failed:
            return "\(subject) failed: \(names)"
        case .couldNotJudge:
            if let runProblem, names.isEmpty { return "\(subject) could not be judged: \(runProblem)" }
            return "\(subject) could not be judged: \(names)"
        case .pendingSignoff:
            return "\(subject) pending sign-off: \(names)"
        }
    }
}

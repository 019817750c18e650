import PipeBasics
import PipeCore

/// How one gate of one run stands, as Pipe tells a forge: the input of every status, check run and comment.
public struct ForgeGateReport: Sendable, Equatable {
    public var pipeline: String
    public var gate: Gate
    public var state: State
    /// The run, when it has an id (a queued request may have none yet).
    public var runID: RunID?
    /// A `pipe run --report` by a person: posted under a context of its own, never the required one.
    public var isManual: Bool

    public init(pipeline: String, gate: Gate, state: State, runID: RunID? = nil, isManual: Bool = false) {
        self.pipeline = pipeline
        self.gate = gate
        self.state = state
        self.runID = runID
        self.isManual = isManual
    }

    public enum State: Sendable, Equatable {
        case queued
        case running
        /// Every other layer passed; the named checklists await a sign-off (release gate).
        case awaitingSignoff(checklists: [String])
        case passed(tests: Int?)
        case appFailed(AppFailure)
        case couldNotJudge(NoJudgement, reason: String)
        case cancelled
        case superseded(by: CommitSHA)
    }

    /// The app was shown wrong: tests failed, the build failed, or a layer ran past its time.
    public struct AppFailure: Sendable, Equatable {
        /// The first layer that failed.
        public var layer: String
        public var failedTests: Int?
        public var totalTests: Int?
        /// One line, e.g. `build-failed: Reader.swift:12: error: …`, shown when there are no test counts.
        public var reason: String

        public init(layer: String, failedTests: Int? = nil, totalTests: Int? = nil, reason: String) {
            self.layer = layer
            self.failedTests = failedTests
            self.totalTests = totalTests
            self.reason = reason
        }
    }

    /// Why Pipe could not judge the app: named as the outcome kinds are, so a team sees where to look.
    public enum NoJudgement: String, Sendable, Equatable, CaseIterable {
        case hostConfig = "host-config"
        case infrastructure
        case pluginError = "plugin-error"
        /// The run was refused before any layer ran (exit 2: a bad request, a missing input).
        case refused = "refused before any layer"
    }

    /// The status context, also the check run's name: `pipe/<pipeline>/<gate>`, or `…/manual` for a manual run.
    public var context: String {
        "pipe/\(pipeline)/\(gate.rawValue)" + (isManual ? "/manual" : "")
    }

    /// A short, specific line: "2 of 19 tests failed in intent", "host-config: scheme Reader is not shared",
    /// "superseded by 1a2b3c4". Not yet cut to a forge's limit (`description(for:)` does).
    public var headline: String {
        let text: String
        switch state {
        case .queued: text = "queued"
        case .running: text = "running"
        case .awaitingSignoff(let checklists):
            text = checklists.isEmpty ? "awaiting sign-off" : "awaiting sign-off: " + checklists.joined(separator: ", ")
        case .passed(let tests):
            if let tests, tests > 0 {
                text = tests == 1 ? "1 test passed" : "\(tests) tests passed"
            } else {
                text = "passed"
            }
        case .appFailed(let failure):
            if let failed = failure.failedTests, failed > 0 {
                let counted = failure.totalTests.map { "\(failed) of \($0)" } ?? "\(failed)"
                text =
                    "\(counted) \(failed == 1 && failure.totalTests == nil ? "test" : "tests") failed in \(failure.layer)"
            } else {
                text = "\(failure.layer): \(failure.reason)"
            }
        case .couldNotJudge(let kind, let reason):
            text = reason.isEmpty ? kind.rawValue : "\(kind.rawValue): \(reason)"
        case .cancelled: text = "cancelled"
        case .superseded(let sha): text = "superseded by \(sha.short)"
        }
        return ForgeTextCut.oneLine((isManual ? "manual run: " : "") + text)
    }

    /// The headline within `forge`'s description limit.
    public func description(for forge: ForgeKind) -> String {
        ForgeTextCut.cut(headline, toScalars: ForgeLimits.of(forge).statusDescription)
    }

    /// `<base-url>/runs/<run id>` when a base URL is configured and the run has an id; nil otherwise (and when the
    /// forge's length limit would refuse it).
    public func targetURL(baseURL: String?, for forge: ForgeKind) -> String? {
        guard let baseURL, !baseURL.isEmpty, let runID else { return nil }
        let url = (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + "/runs/" + runID.value
        if let limit = ForgeLimits.of(forge).targetURL, url.unicodeScalars.count > limit { return nil }
        return url
    }

    /// The commit status state `forge` takes for this gate.
    public func statusState(for forge: ForgeKind) -> String {
        switch forge {
        case .github, .gitea:
            switch state {
            case .queued, .running, .awaitingSignoff: return "pending"
            case .passed: return "success"
            case .appFailed: return "failure"
            case .couldNotJudge, .cancelled, .superseded: return "error"
            }
        case .gitlab:
            switch state {
            case .queued, .awaitingSignoff: return "pending"
            case .running: return "running"
            case .passed: return "success"
            case .appFailed, .couldNotJudge: return "failed"
            case .cancelled, .superseded: return "canceled"
            }
        }
    }
}

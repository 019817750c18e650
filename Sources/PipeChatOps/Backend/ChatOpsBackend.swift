import Foundation
import PipeCore

/// What the chat-ops endpoint needs from the rest of Pipe. The controller implements it with its run queue and the
/// run store; `pipe chatops serve` with runs started in its own process.
///
/// Every value that reaches a host goes through the same typed path as `pipe run`: the backend loads the pipeline
/// with `PipelineLoader` (parameters validated against the pipeline's own), sets the ref, and builds a
/// `RunRequest`; the endpoint never builds command text.
///
/// Calls come from the endpoint's worker threads, several at once, and must be quick: the chat wants its
/// acknowledgement within 3 s, so nothing here may wait on the network (no git fetch, no SSH). Throw
/// `ChatOpsBackendError` for what the person should read (no such run, unknown parameter); other errors are shown
/// as "could not …: <error>".
public protocol ChatOpsBackend: AnyObject {
    /// The pipelines that exist (for help, and for the nearest match to a mistyped name).
    func pipelineNames() throws -> [String]

    /// Queues a run of a pipeline and returns at once with its id. The run is recorded with `request.requestedBy`
    /// as who asked, `request.reason` as why, and trigger `chat`.
    func enqueue(_ request: ChatRunRequest) throws -> ChatQueuedRun

    /// The run id a person typed (an id, a unique prefix, or `last`); `nil` means the latest run.
    func resolveRun(_ typed: String?) throws -> String

    /// A run's record as it is now (queued, running or ended); `nil` when there is no such run yet.
    /// The notifier polls this to tell the chat when a run started, passed its merge gate and ended.
    func record(run runID: String) throws -> RunRecord?

    /// The latest runs, newest first.
    func runs(pipeline: String?, limit: Int) throws -> [RunSummary]

    /// Records a sign-off of a manual layer; validation (the layer is a checklist awaiting sign-off, the fields the
    /// pipeline requires are given) is the backend's, and a refusal records nothing.
    func signoff(_ request: ChatSignoffRequest) throws -> ChatSignoffReceipt

    /// Judges a run against a gate.
    func gate(run runID: String, gate: Gate) throws -> ChatGateReport

    /// The hosts and what is known of them, from local state only (no SSH).
    func hosts() throws -> [ChatHostReport]

    /// Approves a fork's pull request as `pipe forge approve` does. What needs no network is checked at once:
    /// throw `ChatApprovalRefused` when forges.yml does not let this chat user approve, `ChatOpsBackendError` for
    /// an unknown forge. Then it returns what to answer now, reads the pull request's head from the forge on a
    /// thread of its own, and hands the outcome, in one line, to `finished`.
    func approve(_ request: ChatApprovalRequest, finished: @escaping @Sendable (String) -> Void) throws -> String
}

/// A problem the person in the chat should read, e.g. "no run 2026…; `/pipe runs` lists them".
public struct ChatOpsBackendError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

import Foundation
import PipeChatOps
import PipeCore
import PipeSpec

/// The backend of the chat-ops endpoint a controller serves: `/pipe run` puts the request in the controller's
/// queue (chat requests go before scheduled ones), and everything else reads the run store as `pipe chatops serve`
/// does.
final class QueueChatOpsBackend: ChatOpsBackend, @unchecked Sendable {
    private let reader: InProcessChatOpsBackend
    private let queue: RunQueue
    private let project: ProjectFolder
    private let environment: [String: String]
    /// `nil` when the project has no forges.yml.
    private let approver: ChatForgeApprover?

    init(
        reader: InProcessChatOpsBackend, queue: RunQueue, project: ProjectFolder, environment: [String: String],
        approver: ChatForgeApprover?
    ) {
        self.reader = reader
        self.queue = queue
        self.project = project
        self.environment = environment
        self.approver = approver
    }

    func pipelineNames() throws -> [String] { try reader.pipelineNames() }

    /// Checks the request as `pipe enqueue` does (the pipeline loads with these parameters), then queues it; the
    /// controller loads it again when the run starts.
    func enqueue(_ chat: ChatRunRequest) throws -> ChatQueuedRun {
        guard project.availablePipelines().contains(chat.pipeline) else {
            throw ChatOpsBackendError("no pipeline '\(chat.pipeline)' in pipelines/")
        }
        var parameters: [String: String] = [:]
        for pair in chat.parameters { parameters[pair.key] = pair.value }
        let file = try project.pipelineFile(for: chat.pipeline, currentDirectory: project.url)
        let pipeline: Pipeline
        do {
            pipeline = try project.loadPipeline(file, parameters: parameters, environment: environment)
        } catch {
            throw ChatOpsBackendError(error.description)
        }
        let outcome = try queue.enqueue(
            QueueRequest(
                pipeline: chat.pipeline, ref: chat.ref, parameters: parameters, source: .chat,
                requestedBy: chat.requestedBy, reason: chat.reason),
            at: Date())
        guard let queued = outcome.queued else {
            throw ChatOpsBackendError("the request was not queued (it was triggered before)")
        }
        return ChatQueuedRun(
            runID: queued.runID, pipeline: chat.pipeline, ref: chat.ref ?? pipeline.repository.ref)
    }

    func resolveRun(_ typed: String?) throws -> String { try reader.resolveRun(typed) }
    func record(run runID: String) throws -> RunRecord? { try reader.record(run: runID) }
    func runs(pipeline: String?, limit: Int) throws -> [RunSummary] {
        try reader.runs(pipeline: pipeline, limit: limit)
    }
    func signoff(_ request: ChatSignoffRequest) throws -> ChatSignoffReceipt { try reader.signoff(request) }
    func gate(run runID: String, gate: Gate) throws -> ChatGateReport { try reader.gate(run: runID, gate: gate) }
    func hosts() throws -> [ChatHostReport] { try reader.hosts() }

    func approve(_ request: ChatApprovalRequest, finished: @escaping @Sendable (String) -> Void) throws -> String {
        guard let approver else {
            throw ChatOpsBackendError(
                "the project has no forges.yml: approvals are for fork pull requests of the forges it names "
                    + "(docs/forges.md)")
        }
        return try approver.approve(request, finished: finished)
    }
}

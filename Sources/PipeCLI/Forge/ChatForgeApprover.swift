import Foundation
import PipeChatOps
import PipeCore
import PipeForge
import PipeStore

/// The chat's `approve` for a controller with forges.yml: the chat user must be one of the forge's
/// `chat-approvers`; the pull request's head is then read from the forge on this type's own thread (the chat wants
/// its answer within 3 s), and approved there as `pipe forge approve` does.
final class ChatForgeApprover: @unchecked Sendable {
    private let forges: ForgesConfig
    private let store: SQLiteRunStore
    private let credentials: ForgeCredentials
    private let transport: ForgeOutboxDelivery.Transport
    private let wakeSender: () -> Void
    /// One approval at a time: each waits on a forge, and the per-user rate limit already bounds how many come.
    private let queue = DispatchQueue(label: "pipe-chat-approvals")

    init(
        forges: ForgesConfig, store: SQLiteRunStore, credentials: ForgeCredentials,
        transport: @escaping ForgeOutboxDelivery.Transport, wakeSender: @escaping () -> Void
    ) {
        self.forges = forges
        self.store = store
        self.credentials = credentials
        self.transport = transport
        self.wakeSender = wakeSender
    }

    func approve(_ request: ChatApprovalRequest, finished: @escaping @Sendable (String) -> Void) throws -> String {
        guard let forge = forges.forge(named: request.forge) else {
            let names = forges.forges.map(\.name).joined(separator: ", ")
            throw ChatOpsBackendError("forges.yml has no forge '\(request.forge)' (its forges: \(names))")
        }
        if let refusal = forge.forks.refusal(of: .chat(userID: request.userID), forge: forge.name) {
            throw ChatApprovalRefused(refusal)
        }
        let approver = PullRequestApprover(
            forge: forge, forges: forges, store: store, credentials: credentials, transport: transport)
        queue.async { [wakeSender] in
            do {
                let approval = try approver.approve(
                    number: request.number, pinned: request.headSHA, from: .chat(userID: request.userID),
                    by: "chat:\(request.approvedBy)", via: "chat approve")
                if !approval.result.reportedRuns.isEmpty { wakeSender() }
                finished(approval.summary)
            } catch {
                finished("not approved: \(error)")
            }
        }
        return "approving pull request #\(request.number) of \(forge.repository) at the head \(forge.name) reports "
            + "now" + (request.headSHA.map { " (only if it is still \($0))" } ?? "") + "; the outcome follows here"
    }

    /// Waits for the approvals under way.
    func finish() { queue.sync {} }
}

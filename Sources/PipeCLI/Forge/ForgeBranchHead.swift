import Foundation
import PipeCore
import PipeGit

/// A pushed branch's head as the forge's Git server advertises it now (what `git ls-remote` shows), read from the
/// pipeline's own repository in the project's configuration, never from the delivery.
///
/// The webhook is answered after this, so the read is bounded: a server that does not answer within
/// `timeoutSeconds` leaves the event to be taken as the newest, as when the forge's API cannot be asked.
enum ForgeBranchHead {
    static let timeoutSeconds = 5.0

    static func current(of trigger: ForgeTrigger, repository: String, timeoutSeconds: Double = timeoutSeconds)
        -> String?
    {
        guard trigger.event == .push else { return nil }
        let answer = Answer()
        let thread = Thread {
            let heads = try? GitRemoteHeads.list(repository: repository)
            answer.sha = heads?.first { $0.ref == trigger.fetchRef }?.sha
            answer.done.signal()
        }
        thread.name = "pipe-forge-branch-head"
        thread.start()
        guard answer.done.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
        return answer.sha
    }

    /// The listing thread's result: written before `done` is signalled, read only after it was.
    private final class Answer: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var sha: String?
    }
}

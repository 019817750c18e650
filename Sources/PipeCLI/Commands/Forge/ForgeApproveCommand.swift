import Foundation
import PipeBasics
import PipeCore
import PipeForge

/// `pipe forge approve <forge> <number>`: a maintainer's approval, on the coordinator, of a fork's pull request at
/// its current head, for `forks: {policy: approved, command: true}`: recorded in the run store and its pipelines
/// queued there, as an approving label does.
enum ForgeApproveCommand {
    static let spec = CommandSpec(
        name: "approve",
        summary: "Approve a fork's pull request at its current head, and queue its pipelines there.",
        discussion: """
            A pull request from a fork runs untrusted code, so under `forks: {policy: approved}` it runs only once \
            a maintainer approved its head commit; `command: true` lets this command approve. The pull request's \
            current head is asked of the forge; the approval is pinned to that commit (a later push needs a new \
            one), recorded in the run store, and the pipelines forges.yml names for the pull request are queued \
            at it for the controller to run, with their pending statuses in the outbox. --sha approves only if \
            the head is still the commit you reviewed. Refused (exit 2) when forges.yml does not allow approvals \
            from this command, or the pull request is closed or not from a fork.

            Examples:
              pipe forge approve github 42
              pipe forge approve github 42 --sha 3f2a…   # only if #42 is still at the commit reviewed
            """,
        arguments: [
            .required("forge", help: "The forge of forges.yml."),
            .required("number", help: "The pull request's number (GitLab: the merge request's iid)."),
        ],
        options: [.value("sha", help: "The head commit reviewed; refused when the pull request is elsewhere now.")])

    static func execute(_ session: ForgeSession) throws -> Int32 {
        let forge = try session.forge(session.arguments.argument("forge") ?? "")
        let numberText = session.arguments.argument("number") ?? ""
        guard let number = Int(numberText), number >= 1 else {
            throw UsageError(
                .invalidValue(option: "<number>", value: numberText, expected: "a pull request number, 1 or more"),
                command: session.arguments.command)
        }
        let pinned = try session.arguments.string("sha").map { text -> String in
            guard let sha = try? CommitSHA(text) else {
                throw UsageError(
                    .invalidValue(option: "--sha", value: text, expected: "a full commit id (40 or 64 hex digits)"),
                    command: session.arguments.command)
            }
            return sha.value
        }
        let approver = PullRequestApprover(
            forge: forge, forges: session.forges, store: try session.store, credentials: session.credentials,
            transport: session.transport)
        let user = session.context.environment["USER"] ?? session.context.environment["LOGNAME"] ?? "unknown"
        let approval = try approver.approve(
            number: number, pinned: pinned, from: .command, by: "cli:\(user)@\(RunOwner.current().hostname)",
            via: "pipe forge approve")
        session.console.out(approval.summary + "\n")
        if !approval.result.reportedRuns.isEmpty {
            session.console.err("a controller runs the queued runs; `pipe forge send` sends their statuses now\n")
        }
        return 0
    }
}

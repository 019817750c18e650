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

    /// The pull request as the forge reports it now.
    struct PullRequest: Equatable {
        var headSHA: String
        var headRef: String
        var headRepository: String
        var baseBranch: String
        var open: Bool
    }

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
        guard forge.forks.approvesByCommand else {
            throw RequestError(
                "forge \(forge.name) does not take approvals from `pipe forge approve`: its forks.policy is "
                    + "\(forge.forks.name); set `forks: {policy: approved, command: true}` in forges.yml to allow it")
        }
        let pullRequest = try current(number, of: forge, session: session)
        let what = "pull request #\(number) of \(forge.repository)"
        guard pullRequest.open else { throw RequestError("\(what) is closed; there is nothing to approve") }
        guard pullRequest.headRepository.lowercased() != forge.repository.lowercased() else {
            throw RequestError("\(what) is not from a fork: its pipelines run without an approval")
        }
        if let pinned, pinned.lowercased() != pullRequest.headSHA.lowercased() {
            throw RequestError(
                "\(what) is now at \(pullRequest.headSHA), not \(pinned): someone pushed since; review "
                    + "\(pullRequest.headSHA) and approve that")
        }
        let store = try session.store
        let (credentials, transport) = (session.credentials, session.transport)
        let intake = ForgeIntake(config: forge, store: store) { trigger in
            ControllerForges.currentHead(of: trigger, forge: forge, credentials: credentials, transport: transport)
        }
        let user = session.context.environment["USER"] ?? session.context.environment["LOGNAME"] ?? "unknown"
        let result = try intake.approve(
            number: number, headSHA: pullRequest.headSHA, headRef: pullRequest.headRef,
            baseBranch: pullRequest.baseBranch, headRepository: pullRequest.headRepository,
            by: "cli:\(user)@\(RunOwner.current().hostname)", via: "pipe forge approve")
        let reporter = ForgeReporter(forges: session.forges, store: store)
        for runID in result.reportedRuns { try reporter.report(runID) }
        session.console.out(
            DisplayEscaping.escaped(
                "approved \(what) at \(pullRequest.headSHA) (from \(pullRequest.headRepository)): \(result.summary)")
                + "\n")
        if !result.reportedRuns.isEmpty {
            session.console.err("a controller runs the queued runs; `pipe forge send` sends their statuses now\n")
        }
        return 0
    }

    /// Asks the forge for the pull request's head, its branch and repository, and the branch it targets.
    static func current(_ number: Int, of forge: ForgeConfig, session: ForgeSession) throws -> PullRequest {
        let request = try ForgeAPI(repository: forge.apiRepository).pullRequest(number)
        let what = "pull request #\(number) of \(forge.repository)"
        let response: ForgeResponse
        switch try session.send(request, to: forge) {
        case .success(let answer): response = answer
        case .failure(let failure):
            throw RequestError("\(forge.name) cannot be reached to read \(what): \(failure.message)")
        }
        guard response.status == 200 else {
            throw RequestError(
                "\(forge.name) did not give \(what): \(ForgeFailure(forge: forge.kind, response: response).description)"
            )
        }
        guard let pullRequest = read(response, forge: forge) else {
            throw RequestError("\(forge.name) answered \(what) without its head commit and branches")
        }
        return pullRequest
    }

    static func read(_ response: ForgeResponse, forge: ForgeConfig) -> PullRequest? {
        guard let json = response.json, let head = ForgeAnswers.pullRequestHead(response, forge: forge.kind) else {
            return nil
        }
        switch forge.kind {
        case .github, .gitea:
            guard let headRef = json["head"]?["ref"]?.stringValue, let base = json["base"]?["ref"]?.stringValue,
                let headRepository = json["head"]?["repo"]?["full_name"]?.stringValue
            else { return nil }
            return PullRequest(
                headSHA: head.value, headRef: headRef, headRepository: headRepository, baseBranch: base,
                open: json["state"]?.stringValue == "open")
        case .gitlab:
            guard let headRef = json["source_branch"]?.stringValue, let base = json["target_branch"]?.stringValue
            else { return nil }
            let source = json["source_project_id"]?.intValue
            let target = json["target_project_id"]?.intValue
            return PullRequest(
                headSHA: head.value, headRef: headRef,
                headRepository: source == target ? forge.repository : "project \(source.map(String.init) ?? "?")",
                baseBranch: base, open: json["state"]?.stringValue == "opened")
        }
    }
}

import Foundation
import PipeBasics
import PipeCore
import PipeForge
import PipeStore

/// A maintainer's approval of a fork's pull request at the head its forge reports now, for `pipe forge approve`
/// and the chat's `approve` alike: the head is asked of the forge, the approval recorded and pinned to it, the
/// pipelines queued there and their pending statuses written to the outbox.
struct PullRequestApprover {
    /// The pull request as the forge reports it now.
    struct PullRequest: Equatable {
        var headSHA: String
        var headRef: String
        var headRepository: String
        var baseBranch: String
        var open: Bool
    }

    /// What an approval did.
    struct Approval {
        var pullRequest: PullRequest
        var result: ForgeIntakeResult
        /// One line for the person who approved.
        var summary: String
    }

    let forge: ForgeConfig
    let forges: ForgesConfig
    let store: SQLiteRunStore
    let credentials: ForgeCredentials
    let transport: ForgeOutboxDelivery.Transport

    /// Approves pull request `number` at its current head; `pinned`, when given, must still be that head. Throws
    /// `RequestError` (the policy does not take approvals from `source`, closed, not from a fork, moved, the forge
    /// unreachable), having recorded nothing.
    func approve(number: Int, pinned: String?, from source: ForkApprovalSource, by approver: String, via: String)
        throws -> Approval
    {
        if let refusal = forge.forks.refusal(of: source, forge: forge.name) { throw RequestError(refusal) }
        let pullRequest = try current(number)
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
        let (credentials, transport, forge) = (self.credentials, self.transport, self.forge)
        let intake = ForgeIntake(config: forge, store: store) { trigger in
            ControllerForges.currentHead(of: trigger, forge: forge, credentials: credentials, transport: transport)
        }
        let result = try intake.approve(
            number: number, headSHA: pullRequest.headSHA, headRef: pullRequest.headRef,
            baseBranch: pullRequest.baseBranch, headRepository: pullRequest.headRepository, from: source,
            by: approver, via: via)
        let reporter = ForgeReporter(forges: forges, store: store)
        for runID in result.reportedRuns { try reporter.report(runID) }
        return Approval(
            pullRequest: pullRequest, result: result,
            summary: DisplayEscaping.escaped(
                "approved \(what) at \(pullRequest.headSHA) (from \(pullRequest.headRepository)): \(result.summary)"))
    }

    /// Asks the forge for the pull request's head, its branch and repository, and the branch it targets.
    func current(_ number: Int) throws -> PullRequest {
        let request = try ForgeAPI(repository: forge.apiRepository).pullRequest(number)
        let what = "pull request #\(number) of \(forge.repository)"
        let response: ForgeResponse
        switch transport(request.authorized(by: try credentials.credential(of: forge)), forge.apiURL) {
        case .success(let answer): response = answer
        case .failure(let failure):
            throw RequestError("\(forge.name) cannot be reached to read \(what): \(failure.message)")
        }
        guard response.status == 200 else {
            throw RequestError(
                "\(forge.name) did not give \(what): \(ForgeFailure(forge: forge.kind, response: response).description)"
            )
        }
        guard let pullRequest = Self.read(response, forge: forge) else {
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

/// Reads GitHub's and Gitea's / Forgejo's payloads, which share their shapes; the differences (Gitea's
/// `synchronized`, `label_updated` and its separate `create` / `delete` events) are handled here.
struct HubPayloadReader {
    let forge: ForgeKind
    let body: [UInt8]

    func read(event: String) throws(WebhookRefusal) -> WebhookEvent {
        switch event {
        case "push": return .push(try push())
        case "pull_request": return .pullRequest(try pullRequest())
        case "check_run", "check_suite":
            guard forge == .github else { return .ignored(reason: "\(event) is not an event Pipe acts on") }
            return try check(event)
        case "ping":
            let ping = try PayloadChecks.decode(HubPayloads.Ping.self, body, event: event)
            return .ping(
                PingEvent(
                    hookID: ping.hookId, appID: ping.hook?.appId,
                    repository: try PayloadChecks.optionalName(ping.repository?.fullName, "repository.full_name")))
        case "create" where forge == .gitea, "delete" where forge == .gitea:
            return .ignored(reason: "\(event): the push event of the same ref is acted on instead")
        default: return .ignored(reason: "\(event) is not an event Pipe acts on")
        }
    }

    private func push() throws(WebhookRefusal) -> PushEvent {
        let push = try PayloadChecks.decode(HubPayloads.Push.self, body, event: "push")
        let ref = try PayloadChecks.fullRef(push.ref, "ref")
        let (kind, name) = Self.split(ref)
        return PushEvent(
            ref: ref, refKind: kind, name: name, before: try PayloadChecks.optionalSHA(push.before, "before"),
            after: try PayloadChecks.optionalSHA(push.after, "after"),
            repository: try PayloadChecks.name(push.repository.fullName, "repository.full_name"),
            sender: try PayloadChecks.optionalName((push.sender ?? push.pusher)?.name, "sender.login"))
    }

    /// A full ref's kind and short name.
    static func split(_ ref: String) -> (PushEvent.RefKind, String) {
        if ref.hasPrefix("refs/heads/") { return (.branch, String(ref.dropFirst("refs/heads/".count))) }
        if ref.hasPrefix("refs/tags/") { return (.tag, String(ref.dropFirst("refs/tags/".count))) }
        return (.other, ref)
    }

    private func pullRequest() throws(WebhookRefusal) -> PullRequestEvent {
        let delivery = try PayloadChecks.decode(HubPayloads.PullRequestDelivery.self, body, event: "pull_request")
        let request = delivery.pullRequest
        let baseRepository = try PayloadChecks.name(
            request.base.repo?.fullName ?? delivery.repository.fullName, "pull_request.base.repo.full_name")
        // A head repository GitHub no longer shows (a deleted fork) counts as a fork.
        let headRepository = try request.head.repo.map { repo throws(WebhookRefusal) in
            try PayloadChecks.name(repo.fullName, "pull_request.head.repo.full_name")
        }
        let labels = try PayloadChecks.labels(request.labels?.map(\.name) ?? [], "pull_request.labels")
        let action = Self.action(delivery.action)
        var added: [String] = []
        if action == .labeled {
            added =
                try delivery.label.map { label throws(WebhookRefusal) in
                    [try PayloadChecks.name(label.name, "label.name")]
                } ?? labels
        }
        return PullRequestEvent(
            action: action, number: request.number,
            headSHA: try PayloadChecks.sha(request.head.sha, "pull_request.head.sha"),
            headRef: try PayloadChecks.branch(request.head.ref, "pull_request.head.ref"),
            headRepository: headRepository ?? "(deleted repository)",
            baseRef: try PayloadChecks.branch(request.base.ref, "pull_request.base.ref"),
            baseRepository: baseRepository, isFromFork: headRepository != baseRepository,
            title: try PayloadChecks.title(request.title, "pull_request.title"),
            author: try PayloadChecks.optionalName(request.user?.name, "pull_request.user.login"),
            sender: try PayloadChecks.optionalName(delivery.sender?.name, "sender.login"), labels: labels,
            addedLabels: added, merged: request.merged ?? false,
            previousHeadSHA: try delivery.before.flatMap { before throws(WebhookRefusal) in
                try PayloadChecks.optionalSHA(before, "before")
            })
    }

    static func action(_ text: String) -> PullRequestAction {
        switch text {
        case "opened": .opened
        case "synchronize", "synchronized": .synchronized
        case "reopened": .reopened
        case "closed": .closed
        case "labeled", "label_updated": .labeled
        default: .other(text)
        }
    }

    private func check(_ event: String) throws(WebhookRefusal) -> WebhookEvent {
        let delivery = try PayloadChecks.decode(HubPayloads.CheckDelivery.self, body, event: event)
        guard delivery.action == "rerequested" else {
            return .ignored(reason: "\(event) \(delivery.action): only rerequested is acted on")
        }
        let repository = try PayloadChecks.name(delivery.repository.fullName, "repository.full_name")
        let sender = try PayloadChecks.optionalName(delivery.sender?.name, "sender.login")
        if event == "check_run" {
            guard let run = delivery.checkRun else {
                throw WebhookRefusal(.malformed, "the check_run payload has no check_run")
            }
            return .checkRerequested(
                CheckRerequest(
                    scope: .checkRun(
                        id: run.id, externalID: try PayloadChecks.optionalName(run.externalId, "check_run.external_id")
                    ), headSHA: try PayloadChecks.sha(run.headSha, "check_run.head_sha"),
                    headBranch: try run.checkSuite?.headBranch.map { branch throws(WebhookRefusal) in
                        try PayloadChecks.branch(branch, "check_run.check_suite.head_branch")
                    }, appID: run.app?.id, repository: repository, sender: sender))
        }
        guard let suite = delivery.checkSuite else {
            throw WebhookRefusal(.malformed, "the check_suite payload has no check_suite")
        }
        return .checkRerequested(
            CheckRerequest(
                scope: .checkSuite(id: suite.id), headSHA: try PayloadChecks.sha(suite.headSha, "check_suite.head_sha"),
                headBranch: try suite.headBranch.map { branch throws(WebhookRefusal) in
                    try PayloadChecks.branch(branch, "check_suite.head_branch")
                }, appID: suite.app?.id, repository: repository, sender: sender))
    }
}

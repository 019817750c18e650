/// Reads GitLab's `Push Hook`, `Tag Push Hook` and `Merge Request Hook`; other hooks are ignored.
struct GitLabPayloadReader {
    let body: [UInt8]

    func read(event: String) throws(WebhookRefusal) -> WebhookEvent {
        switch event {
        case "Push Hook", "Tag Push Hook": return .push(try push(event))
        case "Merge Request Hook": return .pullRequest(try mergeRequest())
        default: return .ignored(reason: "\(event) is not an event Pipe acts on")
        }
    }

    private func push(_ event: String) throws(WebhookRefusal) -> PushEvent {
        let push = try PayloadChecks.decode(GitLabPayloads.Push.self, body, event: event)
        let ref = try PayloadChecks.fullRef(push.ref, "ref")
        let (kind, name) = HubPayloadReader.split(ref)
        return PushEvent(
            ref: ref, refKind: kind, name: name, before: try PayloadChecks.optionalSHA(push.before, "before"),
            after: try PayloadChecks.optionalSHA(push.after, "after"),
            repository: try PayloadChecks.name(push.project.pathWithNamespace, "project.path_with_namespace"),
            sender: try PayloadChecks.optionalName(push.userUsername, "user_username"))
    }

    private func mergeRequest() throws(WebhookRefusal) -> PullRequestEvent {
        let hook = try PayloadChecks.decode(GitLabPayloads.MergeRequest.self, body, event: "Merge Request Hook")
        let attributes = hook.objectAttributes
        let labels = try PayloadChecks.labels(hook.labels?.map(\.title) ?? [], "labels")
        let previousLabels = Set(hook.changes?.labels?.previous?.map(\.title) ?? [])
        let currentLabels = hook.changes?.labels?.current?.map(\.title)
        let added = try PayloadChecks.labels(
            (currentLabels ?? []).filter { !previousLabels.contains($0) }, "changes.labels.current")
        let oldrev = try attributes.oldrev.flatMap { rev throws(WebhookRefusal) in
            try PayloadChecks.optionalSHA(rev, "object_attributes.oldrev")
        }
        let action: PullRequestAction
        switch attributes.action {
        case "open": action = .opened
        case "reopen": action = .reopened
        case "close", "merge": action = .closed
        case "update" where oldrev != nil: action = .synchronized
        case "update" where currentLabels != nil && !added.isEmpty: action = .labeled
        case let other: action = .other(other ?? "none")
        }
        let base = hook.objectAttributes.target?.pathWithNamespace ?? hook.project.pathWithNamespace
        return PullRequestEvent(
            action: action, number: attributes.iid,
            headSHA: try PayloadChecks.sha(attributes.lastCommit.id, "object_attributes.last_commit.id"),
            headRef: try PayloadChecks.branch(attributes.sourceBranch, "object_attributes.source_branch"),
            headRepository: try PayloadChecks.name(
                attributes.source?.pathWithNamespace ?? base, "object_attributes.source.path_with_namespace"),
            baseRef: try PayloadChecks.branch(attributes.targetBranch, "object_attributes.target_branch"),
            baseRepository: try PayloadChecks.name(base, "object_attributes.target.path_with_namespace"),
            isFromFork: attributes.sourceProjectId != attributes.targetProjectId,
            title: try PayloadChecks.title(attributes.title, "object_attributes.title"), author: nil,
            sender: try PayloadChecks.optionalName(hook.user?.username, "user.username"), labels: labels,
            addedLabels: added, merged: attributes.action == "merge" || attributes.state == "merged",
            previousHeadSHA: oldrev)
    }
}

/// A verified delivery read into what the controller acts on. Every text in it came from the payload and is data:
/// titles and branch names reach a shell only through `ShellQuote`, a terminal or a comment only escaped.
public struct WebhookDelivery: Sendable, Equatable {
    public var forge: ForgeKind
    /// The forge's event name as its header gives it (`pull_request`, `Merge Request Hook`).
    public var eventName: String
    /// The forge's delivery id (not signed: the body digest is what detects a replay); `nil` when none was sent.
    public var deliveryID: String?
    /// SHA-256 hex of the signed body, for the run store's replay check.
    public var bodyDigest: String
    public var event: WebhookEvent

    public init(forge: ForgeKind, eventName: String, deliveryID: String?, bodyDigest: String, event: WebhookEvent) {
        self.forge = forge
        self.eventName = eventName
        self.deliveryID = deliveryID
        self.bodyDigest = bodyDigest
        self.event = event
    }
}

/// What a delivery asks for.
public enum WebhookEvent: Sendable, Equatable {
    case push(PushEvent)
    case pullRequest(PullRequestEvent)
    /// "Re-run" on the forge (`check_run` / `check_suite` `rerequested`): queue the pipeline again at that SHA.
    case checkRerequested(CheckRerequest)
    /// GitHub's `ping` when a hook is made: answered, nothing else.
    case ping(PingEvent)
    /// Anything else: answered 2xx and not acted on; the reason is for the audit log.
    case ignored(reason: String)
}

/// A push of a branch or a tag (GitLab: `Push Hook`, `Tag Push Hook`).
public struct PushEvent: Sendable, Equatable {
    public enum RefKind: Sendable, Equatable {
        case branch
        case tag
        /// Any other ref (`refs/notes/…`).
        case other
    }

    /// The full ref, `refs/heads/main`.
    public var ref: String
    public var refKind: RefKind
    /// The branch or tag name (the ref without `refs/heads/` or `refs/tags/`).
    public var name: String
    /// The ref's commit before the push; `nil` when the push created it.
    public var before: String?
    /// The ref's commit after the push, the exact SHA to run; `nil` when the push deleted it.
    public var after: String?
    /// The repository, `owner/name` (GitLab: the project's full path).
    public var repository: String
    public var sender: String?

    public var created: Bool { before == nil }
    public var deleted: Bool { after == nil }

    public init(
        ref: String, refKind: RefKind, name: String, before: String?, after: String?, repository: String,
        sender: String?
    ) {
        self.ref = ref
        self.refKind = refKind
        self.name = name
        self.before = before
        self.after = after
        self.repository = repository
        self.sender = sender
    }
}

/// What happened to a pull request, in one vocabulary for the three forges.
public enum PullRequestAction: Sendable, Hashable {
    case opened
    /// New commits: GitHub `synchronize`, Gitea `synchronized`, GitLab `update` with `oldrev`.
    case synchronized
    case reopened
    /// Closed, merged or not (`PullRequestEvent.merged` says).
    case closed
    /// Labels added (GitHub `labeled`, Gitea `label_updated`, GitLab `update` that changed labels).
    case labeled
    /// Any other action, as the forge names it.
    case other(String)
}

/// A pull request (GitLab: merge request) event.
public struct PullRequestEvent: Sendable, Equatable {
    public var action: PullRequestAction
    /// GitHub and Gitea `number`, GitLab `iid` (the project's, not the global `id`).
    public var number: Int
    /// The head commit to run, exactly.
    public var headSHA: String
    /// The head's branch name in its own repository.
    public var headRef: String
    public var headRepository: String
    public var baseRef: String
    public var baseRepository: String
    /// The head is in another repository (GitLab: another project).
    public var isFromFork: Bool
    public var title: String
    /// The pull request's author; `nil` on GitLab, whose hook names the author by id only.
    public var author: String?
    /// Who acted (opened, pushed, labeled).
    public var sender: String?
    public var labels: [String]
    /// The labels this event added (for approval by label).
    public var addedLabels: [String]
    public var merged: Bool
    /// The head before new commits (GitHub `before`, GitLab `oldrev`), when the forge says.
    public var previousHeadSHA: String?

    public init(
        action: PullRequestAction, number: Int, headSHA: String, headRef: String, headRepository: String,
        baseRef: String, baseRepository: String, isFromFork: Bool, title: String, author: String?, sender: String?,
        labels: [String] = [], addedLabels: [String] = [], merged: Bool = false, previousHeadSHA: String? = nil
    ) {
        self.action = action
        self.number = number
        self.headSHA = headSHA
        self.headRef = headRef
        self.headRepository = headRepository
        self.baseRef = baseRef
        self.baseRepository = baseRepository
        self.isFromFork = isFromFork
        self.title = title
        self.author = author
        self.sender = sender
        self.labels = labels
        self.addedLabels = addedLabels
        self.merged = merged
        self.previousHeadSHA = previousHeadSHA
    }

    /// The ref the head is fetched by, on its own, from the base repository.
    public func headFetchRef(_ forge: ForgeKind) -> String {
        forge == .gitlab ? "refs/merge-requests/\(number)/head" : "refs/pull/\(number)/head"
    }
}

/// A re-run asked for on GitHub.
public struct CheckRerequest: Sendable, Equatable {
    public enum Scope: Sendable, Equatable {
        /// One check run (`check_run`): Pipe's is found by `externalID` and `appID`.
        case checkRun(id: Int64, externalID: String?)
        /// A whole suite (`check_suite`): every pipeline reported on `headSHA`.
        case checkSuite(id: Int64)
    }

    public var scope: Scope
    public var headSHA: String
    public var headBranch: String?
    /// The app that owns the check run or suite: only Pipe's own app's are acted on.
    public var appID: Int64?
    public var repository: String
    public var sender: String?

    public init(
        scope: Scope, headSHA: String, headBranch: String?, appID: Int64?, repository: String, sender: String?
    ) {
        self.scope = scope
        self.headSHA = headSHA
        self.headBranch = headBranch
        self.appID = appID
        self.repository = repository
        self.sender = sender
    }
}

/// GitHub's `ping`.
public struct PingEvent: Sendable, Equatable {
    public var hookID: Int64?
    /// Set when the hook is a GitHub App's.
    public var appID: Int64?
    public var repository: String?

    public init(hookID: Int64?, appID: Int64?, repository: String?) {
        self.hookID = hookID
        self.appID = appID
        self.repository = repository
    }
}

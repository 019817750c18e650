/// Why a forge's event queued a run: which forge, repository, pull request and exact head commit, so that the run
/// verifies that commit (never "the branch now") and its statuses and comment find their way back.
public struct ForgeTrigger: Sendable, Equatable, Codable {
    public enum Event: String, Sendable, Equatable, Codable {
        case push
        case pullRequest = "pull-request"
        /// A re-run asked for on the forge (a check run or suite `rerequested`).
        case rerequest
        /// A maintainer approved a fork's pull request to run.
        case approval
    }

    /// The forge's name in `forges.yml`.
    public var forge: String
    /// `owner/name`, or a GitLab project's path.
    public var repository: String
    public var event: Event
    /// The pull request's number (GitLab: the merge request's iid); `nil` for a push.
    public var number: Int?
    /// The commit to verify, exactly.
    public var headSHA: String
    /// The branch the commit is on (`feature/x`), for messages and superseding.
    public var headBranch: String
    /// The ref fetched to get the commit (`refs/pull/7/head`, `refs/merge-requests/7/head`, `refs/heads/main`).
    public var fetchRef: String
    /// The branch a pull request would merge into.
    public var baseBranch: String?
    /// The head repository, when it is a fork of `repository`: the code is then `untrusted`.
    public var fork: String?
    /// Secrets the pipeline names are withheld (a fork under `without-secrets`).
    public var secretsWithheld: Bool
    /// The forge's delivery id of the event.
    public var deliveryID: String?
    /// A push's `before`: the branch's commit the push replaced (`nil` for a new branch and for other events).
    public var previousSHA: String?

    public init(
        forge: String, repository: String, event: Event, number: Int?, headSHA: String, headBranch: String,
        fetchRef: String, baseBranch: String? = nil, fork: String? = nil, secretsWithheld: Bool = false,
        deliveryID: String? = nil, previousSHA: String? = nil
    ) {
        self.forge = forge
        self.repository = repository
        self.event = event
        self.number = number
        self.headSHA = headSHA
        self.headBranch = headBranch
        self.fetchRef = fetchRef
        self.baseBranch = baseBranch
        self.fork = fork
        self.secretsWithheld = secretsWithheld
        self.deliveryID = deliveryID
        self.previousSHA = previousSHA
    }
}

extension ForgeTrigger {
    /// Where a forge's runs supersede each other: one pull request, or the pushes to one branch.
    public enum Place: Sendable, Hashable {
        case pullRequest(Int)
        case pushes(fetchRef: String)
    }

    /// The place of this event; `nil` for an event of neither kind (a re-run asked for without a pull request),
    /// which supersedes nothing.
    public var place: Place? {
        if let number { return .pullRequest(number) }
        return event == .push ? .pushes(fetchRef: fetchRef) : nil
    }
}

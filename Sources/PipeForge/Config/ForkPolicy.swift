/// What a pull request from a fork may run. A fork's code is `untrusted` (it runs only on `untrusted` hosts);
/// pipelines and plugins still come only from the project folder.
public enum ForkPolicy: Sendable, Equatable {
    /// Fork pull requests run nothing (the default).
    case never
    /// They run, with the secrets the pipeline names withheld: the layers that need them end `skipped`.
    case withoutSecrets
    /// They run once a maintainer approved the pull request's current head SHA; a later push needs a new approval.
    case approved(ForkApproval)

    /// The words of `forks.policy`.
    public static let names = ["never", "without-secrets", "approved"]

    /// Whether `pipe forge approve` may approve a fork's head.
    public var approvesByCommand: Bool {
        if case .approved(let rules) = self { return rules.command }
        return false
    }

    public var name: String {
        switch self {
        case .never: "never"
        case .withoutSecrets: "without-secrets"
        case .approved: "approved"
        }
    }
}

/// Who may approve a fork's pull request, and how.
public struct ForkApproval: Sendable, Equatable {
    /// A label that approves the head SHA it was added at, when a user in `forgeUsers` adds it.
    public var label: String?
    /// Forge logins (GitHub, Gitea) or usernames (GitLab) whose label counts.
    public var forgeUsers: [String]
    /// Chat user ids who may approve with the chat command (`approve`).
    public var chatUsers: [String]
    /// Whether `pipe forge approve` on the coordinator approves (whoever runs it can edit this file anyway).
    public var command: Bool

    public init(label: String? = nil, forgeUsers: [String] = [], chatUsers: [String] = [], command: Bool = false) {
        self.label = label
        self.forgeUsers = forgeUsers
        self.chatUsers = chatUsers
        self.command = command
    }

    /// Whether adding `label` by `user` approves.
    public func labelApproves(_ label: String, addedBy user: String) -> Bool {
        self.label == label && forgeUsers.contains(user)
    }
}

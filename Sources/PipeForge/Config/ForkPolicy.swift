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

    /// Whether an approval given from `source` counts.
    public func allows(_ source: ForkApprovalSource) -> Bool {
        guard case .approved(let rules) = self else { return false }
        switch source {
        case .command: return rules.command
        case .chat(let userID): return rules.chatUsers.contains(userID)
        }
    }

    /// Why an approval from `source` does not count, with the forges.yml key that would allow it; `nil` when it
    /// counts.
    public func refusal(of source: ForkApprovalSource, forge: String) -> String? {
        guard !allows(source) else { return nil }
        let policy = "its forks.policy is \(name)"
        switch source {
        case .command:
            return "forge \(forge) does not take approvals from `pipe forge approve`: \(policy)"
                + (name == "approved" ? " without `command: true`" : "")
                + "; set `forks: {policy: approved, command: true}` in forges.yml to allow it"
        case .chat(let userID):
            guard name == "approved" else {
                return "forge \(forge) does not take approvals from the chat: \(policy); set `forks: {policy: "
                    + "approved, chat-approvers: [\(userID)]}` in forges.yml to allow it"
            }
            return "chat user \(userID) is not among the chat-approvers of forge \(forge)'s forks: in forges.yml"
        }
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

/// Where a maintainer approved a fork's head, other than by the forge's label.
public enum ForkApprovalSource: Sendable, Equatable {
    /// `pipe forge approve` on the coordinator.
    case command
    /// The chat's `approve` command, by this chat user id.
    case chat(userID: String)
}

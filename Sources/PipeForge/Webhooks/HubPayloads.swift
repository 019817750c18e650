/// The payload shapes GitHub and Gitea / Forgejo share (Gitea copied GitHub's), as far as Pipe reads them.
/// Fields Pipe does not read are not declared, so they are never decoded.
enum HubPayloads {
    struct Repository: Decodable {
        let fullName: String
    }

    struct User: Decodable {
        let login: String?
        /// Gitea's older payloads name users by `username` only.
        let username: String?

        var name: String? { login ?? username }
    }

    struct Label: Decodable {
        let name: String
    }

    struct Push: Decodable {
        let ref: String
        let before: String
        let after: String
        let repository: Repository
        let sender: User?
        let pusher: User?
    }

    struct Side: Decodable {
        let ref: String
        let sha: String
        /// `null` on GitHub when the fork was deleted.
        let repo: Repository?
    }

    struct PullRequest: Decodable {
        let number: Int
        let title: String
        let user: User?
        let head: Side
        let base: Side
        let labels: [Label]?
        let merged: Bool?
    }

    struct PullRequestDelivery: Decodable {
        let action: String
        let number: Int?
        let pullRequest: PullRequest
        let repository: Repository
        let sender: User?
        /// GitHub `labeled`: the label added.
        let label: Label?
        /// GitHub `synchronize`: the head before the push.
        let before: String?
    }

    struct App: Decodable {
        let id: Int64
    }

    struct CheckRun: Decodable {
        let id: Int64
        let headSha: String
        let externalId: String?
        let app: App?
        let checkSuite: CheckSuite?
    }

    struct CheckSuite: Decodable {
        let id: Int64
        let headSha: String
        let headBranch: String?
        let app: App?
    }

    struct CheckDelivery: Decodable {
        let action: String
        let checkRun: CheckRun?
        let checkSuite: CheckSuite?
        let repository: Repository
        let sender: User?
    }

    struct Hook: Decodable {
        let appId: Int64?
    }

    struct Ping: Decodable {
        let hookId: Int64?
        let hook: Hook?
        let repository: Repository?
    }

    struct ActionOnly: Decodable {
        let action: String?
    }
}

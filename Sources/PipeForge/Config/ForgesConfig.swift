import Foundation
import PipeCore

/// The project's `forges.yml`: which forge repositories Pipe takes webhooks from and reports to, and which of the
/// project's pipelines each event runs. Read by `ForgesConfigLoader`; the format is in docs/forges.md.
///
/// Every `pipe` process that records results reads it (`pipe run`, `pipe signoff`, chat-ops, the controller). No
/// secret is in it: `SecretSource` says where each token and webhook secret is read on the coordinator.
public struct ForgesConfig: Sendable, Equatable {
    /// Where the web page serves runs (`<base-url>/runs/<run id>`); links to runs are left out without it.
    public var baseURL: URL?
    /// In file order; names and webhook paths are unique.
    public var forges: [ForgeConfig]

    public init(baseURL: URL? = nil, forges: [ForgeConfig] = []) {
        self.baseURL = baseURL
        self.forges = forges
    }

    /// The forge whose webhook endpoint is `path`: a delivery is verified with that forge's secret before its
    /// body is read, since the repository is only known from the body.
    public func forge(forWebhookPath path: String) -> ForgeConfig? {
        forges.first { $0.webhook.path == path }
    }

    public func forge(named name: String) -> ForgeConfig? { forges.first { $0.name == name } }

    /// `<base-url>/runs/<run id>`, the `target_url` / `details_url` of a run's statuses and checks.
    public func runURL(_ runID: String) -> URL? {
        baseURL?.appendingPathComponent("runs").appendingPathComponent(runID)
    }
}

/// One forge repository (a GitLab project) and what its events run.
public struct ForgeConfig: Sendable, Equatable {
    /// The key under `forges:`; names the forge in statuses' logs, `pipe forge …` and the run store.
    public var name: String
    public var kind: ForgeKind
    /// The API's base URL, e.g. `https://api.github.com`, `https://ghe.example.com/api/v3`,
    /// `https://gitea.example.com/api/v1`, `https://gitlab.example.com/api/v4`.
    public var apiURL: URL
    /// `owner/name` on GitHub and Gitea; a GitLab project's full path (`group/subgroup/project`) or numeric id.
    public var repository: String
    /// Where the API token is read; `nil` only for GitHub with `app:` (installation tokens are used instead).
    public var token: SecretSource?
    public var webhook: WebhookEndpointConfig
    public var push: [PushRule]
    public var pullRequests: [PullRequestRule]
    /// GitHub only: report as a GitHub App (check runs need one).
    public var app: GitHubAppConfig?
    /// GitHub with `app:` only: check runs replace the commit statuses of the same gates.
    public var checksReplaceStatuses: Bool
    /// One comment per pull request and pipeline, edited in place.
    public var comment: Bool
    /// A newer push to the same pull request or branch supersedes the older run of the same pipeline.
    public var supersede: Bool
    public var forks: ForkPolicy

    public init(
        name: String, kind: ForgeKind, apiURL: URL, repository: String, token: SecretSource?,
        webhook: WebhookEndpointConfig, push: [PushRule] = [], pullRequests: [PullRequestRule] = [],
        app: GitHubAppConfig? = nil, checksReplaceStatuses: Bool = false, comment: Bool = true, supersede: Bool = true,
        forks: ForkPolicy = .never
    ) {
        self.name = name
        self.kind = kind
        self.apiURL = apiURL
        self.repository = repository
        self.token = token
        self.webhook = webhook
        self.push = push
        self.pullRequests = pullRequests
        self.app = app
        self.checksReplaceStatuses = checksReplaceStatuses
        self.comment = comment
        self.supersede = supersede
        self.forks = forks
    }

    /// The pipelines a push to the full ref `ref` (`refs/heads/main`, `refs/tags/v1.0`) runs, in file order,
    /// each once.
    public func pipelines(forPushTo ref: String) -> [String] {
        unique(push.filter { $0.matches(fullRef: ref) }.flatMap(\.pipelines))
    }

    /// The pipelines a pull request event runs: by its action and the branch it targets.
    public func pipelines(forPullRequest action: PullRequestAction, targeting baseBranch: String) -> [String] {
        unique(
            pullRequests.filter { $0.actions.contains(action) && $0.matches(baseBranch: baseBranch) }
                .flatMap(\.pipelines))
    }

    private func unique(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }
}

/// The forge's webhook endpoint on the controller's HTTP listener.
public struct WebhookEndpointConfig: Sendable, Equatable {
    /// e.g. `/hooks/github`; one forge per path.
    public var path: String
    /// GitHub and Gitea: the HMAC secret; GitLab: the secret token sent in `X-Gitlab-Token`. `nil` only on
    /// GitLab with `signingToken`.
    public var secret: SecretSource?
    /// GitLab only: the signing token (`whsec_…`) of signed webhooks (`webhook-signature`).
    public var signingToken: SecretSource?
    /// How far a signed GitLab webhook's `webhook-timestamp` may be from now.
    public var timestampToleranceSeconds: Double
    /// The largest body taken; bigger ones are refused before they are read.
    public var maxBodyBytes: Int

    public static let defaultTimestampToleranceSeconds: Double = 300
    /// GitHub does not deliver payloads over 25 MB; pull request and push payloads are tens of KB.
    public static let defaultMaxBodyBytes = 5 * 1024 * 1024

    public init(
        path: String, secret: SecretSource?, signingToken: SecretSource? = nil,
        timestampToleranceSeconds: Double = defaultTimestampToleranceSeconds, maxBodyBytes: Int = defaultMaxBodyBytes
    ) {
        self.path = path
        self.secret = secret
        self.signingToken = signingToken
        self.timestampToleranceSeconds = timestampToleranceSeconds
        self.maxBodyBytes = maxBodyBytes
    }

    /// `/hooks/github`, `/hooks/gitea`, `/hooks/gitlab`.
    public static func defaultPath(_ kind: ForgeKind) -> String { "/hooks/\(kind.rawValue)" }
}

/// Pushes to matching branches or tags run these pipelines.
public struct PushRule: Sendable, Equatable {
    public var pipelines: [String]
    /// Branch names (`main`, `release/*`) or full ref patterns (`refs/tags/v*`), as `trusted-refs:` writes them.
    public var refs: [TrustedRefPattern]

    public init(pipelines: [String], refs: [TrustedRefPattern]) {
        self.pipelines = pipelines
        self.refs = refs
    }

    public func matches(fullRef ref: String) -> Bool { refs.contains { $0.matches(fullRef: ref) } }
}

/// Pull requests (GitLab merge requests) with one of these actions, into a matching branch, run these pipelines.
public struct PullRequestRule: Sendable, Equatable {
    public var pipelines: [String]
    /// Target branches; empty: any.
    public var baseBranches: [BranchPattern]
    /// Which actions run: by default opened, synchronized and reopened.
    public var actions: Set<PullRequestAction>

    public static let defaultActions: Set<PullRequestAction> = [.opened, .synchronized, .reopened]

    public init(pipelines: [String], baseBranches: [BranchPattern] = [], actions: Set<PullRequestAction>? = nil) {
        self.pipelines = pipelines
        self.baseBranches = baseBranches
        self.actions = actions ?? Self.defaultActions
    }

    public func matches(baseBranch: String) -> Bool {
        baseBranches.isEmpty || baseBranches.contains { $0.matches(baseBranch) }
    }
}

/// A GitHub App: Pipe signs a JWT with its private key and exchanges it for an installation token.
public struct GitHubAppConfig: Sendable, Equatable {
    public var appID: Int
    /// The app's PEM private key (a file on the coordinator, or an environment variable holding the PEM).
    public var privateKey: SecretSource
    public var installationID: Int

    public init(appID: Int, privateKey: SecretSource, installationID: Int) {
        self.appID = appID
        self.privateKey = privateKey
        self.installationID = installationID
    }
}

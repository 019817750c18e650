import PipeSpec

/// The keys of `forges.yml` and their types: `ForgesConfigLoader` checks keys against these, and `pipe schema
/// forges` writes them as a JSON Schema.
public enum ForgesConfigShape {
    static let forgeName = "^[A-Za-z0-9._-]+$"
    static let secret = MappingShape(
        "Where the value is read: {env: NAME} or {file: path}, never the value itself",
        [
            KeyShape("env", .nonEmptyText, "an environment variable"),
            KeyShape("file", .nonEmptyText, "a file"),
        ])
    static let webhook = MappingShape(
        "The endpoint the forge delivers webhooks to",
        [
            KeyShape("path", .nonEmptyText, "the endpoint's path, starting with / (default /hooks/<kind>)"),
            KeyShape("secret", .mapping(secret), "where the webhook secret is read"),
            KeyShape("signing-token", .mapping(secret), "GitLab's signing token (signed webhooks)"),
            KeyShape("timestamp-tolerance", .duration, "how old a signed delivery may be (with signing-token)"),
            KeyShape("body-limit", .byteSize, "the largest delivery, 1KiB to 25MB"),
        ])
    static let push = MappingShape(
        "Which pushes run which pipelines",
        [
            KeyShape("pipelines", .texts, required: true, "pipelines of pipelines/, by name"),
            KeyShape("branches", .texts, "branch patterns such as main or release/*"),
            KeyShape("tags", .texts, "tag patterns such as v*"),
        ])
    static let pullRequest = MappingShape(
        "Which pull requests run which pipelines",
        [
            KeyShape("pipelines", .texts, required: true, "pipelines of pipelines/, by name"),
            KeyShape("branches", .texts, "target branch patterns"),
            KeyShape("actions", .oneOrMore(.choice(ForgeDecoder.actionWords.keys.sorted())), "the actions that run"),
        ])
    static let app = MappingShape(
        "The GitHub App that reports checks",
        [
            KeyShape("id", .integer(1...Int.max), required: true, "the App ID"),
            KeyShape("private-key", .mapping(secret), required: true, "where the app's private key is read"),
            KeyShape("installation-id", .integer(1...Int.max), required: true, "the installation's number"),
        ])
    static let forks = MappingShape(
        "What a pull request from a fork may run",
        [
            KeyShape("policy", .choice(["never", "without-secrets", "approved"]), required: true, "the policy"),
            KeyShape("label", .nonEmptyText, "the label that approves a fork's pull request"),
            KeyShape("approvers", .texts, "forge logins whose label counts"),
            KeyShape("chat-approvers", .texts, "chat users who may approve"),
            KeyShape("command", .boolean, "approve with a comment command"),
        ])
    /// One rule, or a list of them.
    static func rules(_ rule: MappingShape) -> ValueShape { .either([.mapping(rule), .list(.mapping(rule))]) }
    static let forge = MappingShape(
        "One forge",
        [
            KeyShape("kind", .choice(ForgeKind.allCases.map(\.rawValue)), required: true, "github, gitea or gitlab"),
            KeyShape("api-url", .nonEmptyText, "the forge's API URL (default: the public service's)"),
            KeyShape("repository", .nonEmptyText, required: true, "owner/name (GitLab: group/project)"),
            KeyShape("token", .mapping(secret), "where the API token is read"),
            KeyShape("webhook", .mapping(webhook), required: true, "the webhook endpoint"),
            KeyShape("push", rules(push), "which pushes run which pipelines"),
            KeyShape("pull-requests", rules(pullRequest), "which pull requests run which pipelines"),
            KeyShape("app", .mapping(app), "a GitHub App (GitHub only)"),
            KeyShape("checks", .boolean, "report as check runs (GitHub)"),
            KeyShape("comment", .boolean, "comment the result on the pull request"),
            KeyShape("supersede", .boolean, "cancel a pull request's older runs"),
            KeyShape(
                "forks", .either([.choice(["never", "without-secrets"]), .mapping(forks)]),
                "what pull requests from forks may run"),
        ])
    static let top = MappingShape(
        "Forges whose webhooks start runs (forges.yml, docs/forges.md)",
        [
            KeyShape("base-url", .nonEmptyText, "the public URL that links to runs start with"),
            KeyShape("forges", .named(.mapping(forge), keyPattern: forgeName), required: true, "forges, by name"),
        ])

    public static let file = FileShape(kind: "forges", title: "Pipe forges config", root: top)
}

import PipeSpec

/// The keys of a `chatops:` section and their types: `ChatOpsConfigLoader` checks keys against these, and `pipe
/// schema chatops` (and the controller's schema) write them as a JSON Schema.
public enum ChatOpsConfigShape {
    /// `{env: NAME}` or `{file: path}`: where a secret is read, never the secret.
    public static let secret = MappingShape(
        "Where the secret is read: {env: NAME} or {file: path}, never the secret itself",
        [
            KeyShape("env", .nonEmptyText, "an environment variable"),
            KeyShape("file", .nonEmptyText, "a file"),
        ])
    static let proxy = MappingShape(
        "The reverse proxy in front of the endpoint",
        [
            KeyShape("forwarded-for", .nonEmptyText, "the header naming the client's address"),
            KeyShape("secret-header", .nonEmptyText, "the header the proxy adds to prove it sent the request"),
            KeyShape("secret", .mapping(secret), "where that header's value is read"),
        ])
    static let limits = MappingShape(
        "Bounds on requests and the audit log",
        [
            KeyShape("body-bytes", .integer(512...1_048_576), "the largest request body"),
            KeyShape("header-bytes", .integer(1024...1_048_576), "the largest request head"),
            KeyShape("connections", .integer(1...10_000), "connections at once"),
            KeyShape("connections-per-peer", .integer(1...10_000), "connections at once from one address"),
            KeyShape("head-time", .duration, "how long a request head may take"),
            KeyShape("request-time", .duration, "how long a request may take"),
            KeyShape("requests-per-minute", .integer(1...100_000), "requests per minute"),
            KeyShape("audit-field-bytes", .integer(64...65_536), "the longest field kept in the audit log"),
            KeyShape("refusals-logged-per-peer", .integer(0...1000), "refusals logged per address and window"),
            KeyShape("refusal-window", .duration, "the window of refusals-logged-per-peer"),
            KeyShape("audit-log-bytes", .integer(65_536...1_073_741_824), "the audit log's size before it rotates"),
        ])
    /// One text or a list of them.
    public static let patterns = ValueShape.texts
    static let userGrant = MappingShape(
        "What a chat user may do",
        [
            KeyShape("name", .text, "who this is, for the audit log"),
            KeyShape("run", patterns, "the pipelines the user may run (patterns)"),
            KeyShape("signoff", patterns, "the checklists the user may sign (patterns)"),
        ])
    static let channelGrant = MappingShape(
        "What anyone in a channel may do",
        [
            KeyShape("name", .text, "which channel this is, for the audit log"),
            KeyShape("run", patterns, "the pipelines the channel may run (patterns)"),
        ])
    static let authorization = MappingShape(
        "Who may use the endpoint",
        [
            KeyShape("users", .named(.mapping(userGrant)), "chat user IDs and what each may do"),
            KeyShape("channels", .named(.mapping(channelGrant)), "channel IDs and what anyone in each may do"),
        ])
    /// The `chatops:` section.
    public static let section = MappingShape(
        "The chat-ops endpoint (docs/chatops.md)",
        [
            KeyShape("address", .text, "the address `pipe chatops serve` listens on"),
            KeyShape("port", .integer(0...65535), "the port `pipe chatops serve` listens on"),
            KeyShape("unix-socket", .nonEmptyText, "listen on this socket instead (1 to 107 bytes)"),
            KeyShape("proxy", .mapping(proxy), "the reverse proxy in front of the endpoint"),
            KeyShape("path", .text, "the URL path of the slash command"),
            KeyShape("dialect", .choice(ChatDialect.allCases.map(\.rawValue)), "the chat system"),
            KeyShape("secret", .mapping(secret), required: true, "where the signing secret is read"),
            KeyShape("timestamp-window", .duration, "how old a signed request may be"),
            KeyShape("response-urls", patterns, "the URL prefixes results may be posted to"),
            KeyShape("results", .choice(["channel", "private"]), "who sees the results"),
            KeyShape("audit-log", .text, "the audit log's path"),
            KeyShape("limits", .mapping(limits), "bounds on requests and the audit log"),
            KeyShape("authorization", .mapping(authorization), required: true, "who may use the endpoint"),
        ])

    /// `.pipe/chatops.yml`: its top level holds `chatops:` (other keys are left to their owners).
    public static let file = FileShape(
        kind: "chatops", title: "Pipe chat-ops config",
        root: MappingShape(
            "A chat-ops config (`pipe chatops serve --config`)",
            [KeyShape("chatops", .mapping(section), required: true, "the chat-ops endpoint")], allowsOtherKeys: true))
}

import PipeChatOps
import PipeSpec

/// The keys of a `web:` section and their types: `WebConfigLoader` checks keys against these, and `pipe schema
/// web` (and the controller's schema) write them as a JSON Schema.
public enum WebConfigShape {
    static let proxy = MappingShape(
        "The reverse proxy that signs users in",
        [
            KeyShape("user-header", .nonEmptyText, "the header naming the signed-in user"),
            KeyShape("secret-header", .nonEmptyText, "the header the proxy adds to prove it sent the request"),
            KeyShape("secret", .mapping(ChatOpsConfigShape.secret), "where that header's value is read"),
        ])
    static let listener = [
        KeyShape("address", .text, "the address `pipe web serve` listens on"),
        KeyShape("port", .integer(0...65535), "the port `pipe web serve` listens on"),
        KeyShape("unix-socket", .nonEmptyText, "listen on this socket instead (1 to 107 bytes)"),
    ]
    static let page = [
        KeyShape("path", .text, "where the page is mounted: starts and ends with /"),
        KeyShape("read", .choice(["anyone", "signed-in"]), "who may read runs"),
        KeyShape("users-file", .text, "the page's own users (`pipe web users add`)"),
        KeyShape("proxy", .mapping(proxy), "identity from a reverse proxy"),
        KeyShape("plain-http", .boolean, "allow sign-in over plain HTTP"),
        KeyShape("session-time", .duration, "how long a sign-in lasts"),
        KeyShape("sign-ins-per-minute", .integer(1...1000), "sign-in attempts per minute"),
        KeyShape("signoff", .named(ChatOpsConfigShape.patterns), "users and the checklists each may sign"),
    ]
    /// The `web:` section of `pipe web serve`'s file.
    public static let section = MappingShape("The web page (docs/web.md)", listener + page)
    /// The `web:` section of the controller's config, where `http:` says where to listen.
    public static let controllerSection = MappingShape("The web page, on the controller's listener", page)

    /// `.pipe/web.yml`: its top level holds `web:`.
    public static let file = FileShape(
        kind: "web", title: "Pipe web config",
        root: MappingShape(
            "A web page config (`pipe web serve --config`)",
            [KeyShape("web", .mapping(section), required: true, "the web page")], allowsOtherKeys: true))
}

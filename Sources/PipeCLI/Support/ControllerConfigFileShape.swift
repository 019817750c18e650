import PipeChatOps
import PipeServer
import PipeSpec
import PipeWeb

/// The controller config's `http:` section, and the whole file with the sections other modules read.
enum ControllerConfigFileShape {
    static let httpLimits = MappingShape(
        "Limits every connection to the listener shares",
        [
            KeyShape("header-bytes", .integer(1024...1_000_000), "the largest request head"),
            KeyShape("connections", .integer(1...1_000_000), "connections at once"),
            KeyShape("connections-per-peer", .integer(0...1_000_000), "connections at once from one address"),
            KeyShape("head-time", .duration, "how long a request head may take"),
        ])
    static let http = MappingShape(
        "The controller's one HTTP listener",
        [
            KeyShape("address", .nonEmptyText, "the address it listens on (default 127.0.0.1)"),
            KeyShape("port", .integer(0...65535), "the port it listens on (default 8088)"),
            KeyShape("unix-socket", .nonEmptyText, "listen on this socket instead of address and port"),
            KeyShape(
                "base-url", .nonEmptyText,
                "the public URL behind the reverse proxy, such as https://ci.example.com/pipe"),
            KeyShape("limits", .mapping(httpLimits), "limits every connection shares"),
        ])

    static let file = FileShape(
        kind: "controller", title: "Pipe controller config",
        root: MappingShape(
            ControllerConfigShape.top.summary,
            ControllerConfigShape.top.keys + [
                KeyShape("http", .mapping(http), "where the controller listens"),
                KeyShape("chatops", .mapping(ChatOpsConfigShape.section), "the chat-ops endpoint"),
                KeyShape("web", .mapping(WebConfigShape.controllerSection), "the web page"),
            ]))
}

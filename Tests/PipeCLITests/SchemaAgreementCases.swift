import Foundation
import PipeChatOps
import PipeForge
import PipeServer
import PipeSpec
import PipeWeb

@testable import PipeCLI

/// Small files of each kind, each either accepted by its loader or refused for a key or a type (`refusal`: a part
/// of the loader's message), with the loader that reads each kind.
enum SchemaAgreementCases {
    struct Case {
        var kind: String
        var name: String
        var yaml: String
        var refusal: String?
    }

    static let pipeline = "layers:\n  build:\n    plugin: shell\n    command: make\n"
    static let host = """
        hosts:
          - name: mac-1
            address: 10.0.0.5
            user: ci
            known-hosts: known_hosts
            use-agent: yes

        """
    static let chatops = """
        chatops:
          secret: {env: PIPE_SLACK_SIGNING_SECRET}
          authorization:
            users:
              U012ABCDEF: {name: alice, run: ["*"]}

        """
    static let forges = """
        forges:
          github:
            kind: github
            repository: acme/reader
            token: {env: PIPE_GITHUB_TOKEN}
            webhook: {secret: {env: PIPE_GITHUB_WEBHOOK_SECRET}}
            push: [{branches: [main], pipelines: [app-intents]}]

        """
    static let web = "web:\n  users-file: web-users\n"
    static let controller = "schedules:\n  nightly:\n    pipeline: app-intents\n    cron: \"0 2 * * *\"\n"

    static let all: [Case] = [
        Case(kind: "pipeline", name: "a shell layer", yaml: pipeline),
        Case(
            kind: "pipeline", name: "an interpolated integer",
            yaml: "parameters:\n  n: {default: \"2\"}\nconcurrency: \"${n}\"\n" + pipeline),
        Case(
            kind: "pipeline", name: "an unknown top-level key", yaml: "layer: {}\n" + pipeline, refusal: "unknown key"),
        Case(
            kind: "pipeline", name: "a setting of another plugin", yaml: pipeline + "    scheme: Reader\n",
            refusal: "unknown key"),
        Case(
            kind: "pipeline", name: "a quoted integer", yaml: "concurrency: \"2\"\n" + pipeline,
            refusal: "expected an integer"),
        Case(
            kind: "pipeline", name: "a boolean as text", yaml: "description: yes\n" + pipeline, refusal: "expected text"
        ),
        Case(
            kind: "pipeline", name: "a list as a duration", yaml: pipeline + "    timeout: [1]\n", refusal: "expected"),
        Case(kind: "pipeline", name: "an unknown gate", yaml: pipeline + "    gate: later\n", refusal: "later"),
        Case(
            kind: "pipeline", name: "a missing plugin setting", yaml: "layers:\n  build: {plugin: shell}\n",
            refusal: "command"),
        Case(kind: "pipeline", name: "a size", yaml: pipeline + "    log-limit: 64MB\n    timeout: 1h30m\n"),
        Case(
            kind: "pipeline", name: "a bad size", yaml: pipeline + "    log-limit: lots\n", refusal: "expected a size"),
        Case(kind: "pipeline", name: "no backoff", yaml: "retry: {backoff: 0s, tests: 2}\n" + pipeline),
        Case(
            kind: "pipeline", name: "a zero timeout", yaml: pipeline + "    timeout: 0s\n",
            refusal: "expected a duration"),
        Case(kind: "hosts", name: "a host", yaml: host),
        Case(kind: "hosts", name: "a quoted port", yaml: host + "    port: \"22\"\n", refusal: "expected an integer"),
        Case(kind: "hosts", name: "a misspelt key", yaml: host + "    adress: x\n", refusal: "unknown key"),
        Case(kind: "hosts", name: "a port out of range", yaml: host + "    port: 70000\n", refusal: "out of range"),
        Case(kind: "hosts", name: "a build cache", yaml: host + "    build-cache: {max-size: 50GiB, max-age: 14d}\n"),
        Case(
            kind: "hosts", name: "a build cache key", yaml: host + "    build-cache: {max-sise: 50GiB}\n",
            refusal: "unknown key"),
        Case(kind: "controller", name: "a schedule", yaml: controller),
        Case(kind: "controller", name: "no idle sessions", yaml: controller + "session-idle: 0s\n"),
        Case(
            kind: "controller", name: "a quoted limit", yaml: controller + "limits: {runs: \"4\"}\n", refusal: "integer"
        ),
        Case(
            kind: "controller", name: "an http section",
            yaml: controller + "http: {port: 8088, base-url: https://ci.example.com}\n"),
        Case(
            kind: "controller", name: "a branch without brackets",
            yaml: "watches:\n  main: {pipeline: app-intents, branches: main}\n"),
        Case(
            kind: "controller", name: "a mapping of branches",
            yaml: "watches:\n  main: {pipeline: app-intents, branches: {main: 1}}\n", refusal: "expected a list"),
        Case(kind: "controller", name: "an http key", yaml: controller + "http: {adress: x}\n", refusal: "unknown key"),
        Case(
            kind: "controller", name: "a chatops section",
            yaml: controller + chatops.replacingOccurrences(of: "authorization", with: "authorisation"),
            refusal: "unknown key"),
        Case(
            kind: "controller", name: "a web section", yaml: controller + "web: {users-file: web-users, read: anyone}\n"
        ),
        Case(
            kind: "controller", name: "a schedule key", yaml: controller + "    time-zon: UTC\n", refusal: "unknown key"
        ),
        Case(kind: "chatops", name: "a chat-ops config", yaml: chatops),
        Case(kind: "chatops", name: "a port", yaml: chatops + "  port: high\n", refusal: "whole number"),
        Case(kind: "chatops", name: "a limit", yaml: chatops + "  limits: {body-bytes: 10}\n", refusal: "whole number"),
        Case(kind: "chatops", name: "a results word", yaml: chatops + "  results: everyone\n", refusal: "channel"),
        Case(kind: "forges", name: "a forge", yaml: forges),
        Case(kind: "forges", name: "a forge key", yaml: forges + "    check: true\n", refusal: "unknown key"),
        Case(kind: "forges", name: "a switch", yaml: forges + "    comment: maybe\n", refusal: "boolean"),
        Case(
            kind: "forges", name: "a forge kind",
            yaml: forges.replacingOccurrences(of: "kind: github", with: "kind: bitbucket"), refusal: "bitbucket"),
        Case(kind: "web", name: "a web config", yaml: web),
        Case(kind: "web", name: "a plain-http number", yaml: web + "  plain-http: 1\n", refusal: "true or false"),
        Case(kind: "web", name: "a read word", yaml: web + "  read: everyone\n", refusal: "anyone or signed-in"),
        Case(kind: "web", name: "a web key", yaml: web + "  user-file: x\n", refusal: "unknown key"),
        Case(kind: "project", name: "trusted refs", yaml: "trusted-refs: [main, \"release/*\", \"refs/tags/v*\"]\n"),
        Case(kind: "project", name: "a misspelt key", yaml: "trusted-ref: [main]\n", refusal: "unknown key"),
        Case(kind: "project", name: "a mapping of refs", yaml: "trusted-refs: {main: 1}\n", refusal: "expected a list"),
    ]

    /// The loader's error messages for `file` read as `kind`; empty when it loads.
    static func loaderErrors(_ kind: String, _ file: URL, folder: URL) -> [String] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        do {
            switch kind {
            case "pipeline":
                return PipelineLoader(registry: BuiltInPlugins.schemas).validate(yaml: text, file: "build.yml").errors
                    .map(\.message)
            case "hosts": _ = try HostsFileLoader.load(yaml: text, file: "hosts.yml", baseDirectory: folder)
            case "controller":
                var loader = ControllerConfigLoader()
                ControllerHTTPSections().register(on: &loader)
                _ = try loader.load(yaml: text, file: "controller.yml")
            case "chatops": _ = try ChatOpsConfigLoader.load(path: file)
            case "forges": _ = try ForgesConfigLoader().load(yaml: text, file: "forges.yml")
            case "web": _ = try WebConfigLoader.load(path: file)
            case "project": _ = try ProjectFileLoader.load(yaml: text, file: "project.yml")
            default: return ["no loader for \(kind)"]
            }
        } catch {
            return error.problems.filter { $0.severity == .error }.map(\.message)
        }
        return []
    }
}

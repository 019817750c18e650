import Foundation
import PipeCore
import PipeSpec

/// Decodes one entry of `forges:`, remembering the webhook paths already taken by earlier forges.
struct ForgeDecoder {
    let document: SpecDocument
    let pipelines: [String]?
    private let values: ForgeValueReader
    /// Webhook path → the forge that has it.
    private var paths: [String: String] = [:]

    init(document: SpecDocument, pipelines: [String]?) {
        self.document = document
        self.pipelines = pipelines
        values = ForgeValueReader(document)
    }

    /// The API base URL when the file gives none: the public service's, for the kinds that have one.
    static func defaultAPIURL(_ kind: ForgeKind) -> URL? {
        switch kind {
        case .github: URL(string: "https://api.github.com")
        case .gitlab: URL(string: "https://gitlab.com/api/v4")
        case .gitea: nil
        }
    }

    mutating func forge(_ name: String, keyNode: YAMLNode, _ node: YAMLNode, at parent: SpecKeyPath) -> ForgeConfig? {
        let path = parent.appending(name)
        if !Self.isValidName(name) {
            document.error(path, at: keyNode.start, "'\(name)' cannot name a forge: use letters, digits, '.', '_', '-'")
        }
        guard let mapping = document.mapping(node, at: path, expected: "a forge (a mapping with 'kind:')") else {
            return nil
        }
        mapping.rejectUnknownKeys(allowed: ForgesConfigLoader.forgeKeys)
        guard let kindNode = mapping.required("kind", hint: "github, gitea (Forgejo too) or gitlab"),
            let kind = document.choice(kindNode, at: path.appending("kind"), among: ForgeKind.allCases)
        else { return nil }
        let apiURL = apiURL(kind, mapping)
        let repository = repository(kind, mapping)
        let app = mapping.value("app").flatMap { self.app($0, kind: kind, at: path.appending("app")) }
        var token: SecretSource?
        if let tokenNode = mapping.value("token") {
            token = values.secretSource(tokenNode, at: path.appending("token"), what: "the API token")
        } else if kind != .github || !mapping.contains("app") {
            _ = mapping.required(
                "token", hint: "where the API token is read: `token: {env: VARIABLE}` or `{file: path}`")
        }
        let webhook = mapping.required("webhook", hint: "the endpoint's secret: `webhook: {secret: {env: VARIABLE}}`")
            .flatMap { self.webhook($0, kind: kind, forge: name, at: path.appending("webhook")) }
        var forge = ForgeConfig(
            name: name, kind: kind, apiURL: apiURL ?? URL(fileURLWithPath: "/"), repository: repository ?? "",
            token: token, webhook: webhook ?? WebhookEndpointConfig(path: "", secret: nil), app: app)
        if let node = mapping.value("push") { forge.push = pushRules(node, at: path.appending("push")) }
        if let node = mapping.value("pull-requests") {
            forge.pullRequests = pullRequestRules(node, at: path.appending("pull-requests"))
        }
        if forge.push.isEmpty, forge.pullRequests.isEmpty, !mapping.contains("push"), !mapping.contains("pull-requests")
        {
            document.warning(
                path, at: node.start, "neither push: nor pull-requests: is given, so this forge's events run nothing")
        }
        readSwitches(mapping, kind: kind, into: &forge)
        if let node = mapping.value("forks") { forge.forks = forks(node, at: path.appending("forks")) }
        guard apiURL != nil, repository != nil, webhook != nil else { return nil }
        return forge
    }

    private func apiURL(_ kind: ForgeKind, _ mapping: SpecMapping) -> URL? {
        if let node = mapping.value("api-url") {
            return values.url(node, at: mapping.path.appending("api-url"), what: "the API")
        }
        if let url = Self.defaultAPIURL(kind) { return url }
        _ = mapping.required(
            "api-url", hint: "Gitea and Forgejo have no default, e.g. https://gitea.example.com/api/v1")
        return nil
    }

    private func repository(_ kind: ForgeKind, _ mapping: SpecMapping) -> String? {
        let example = kind == .gitlab ? "group/project, group/subgroup/project or a project id" : "owner/name"
        guard let node = mapping.required("repository", hint: example),
            let text = document.nonEmptyString(node, at: mapping.path.appending("repository"))
        else { return nil }
        let isProjectID = kind == .gitlab && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
        let segments = text.split(separator: "/", omittingEmptySubsequences: false)
        let segmentsAllowed = kind == .gitlab ? segments.count >= 2 : segments.count == 2
        let valid =
            isProjectID
            || segmentsAllowed
                && segments.allSatisfy { segment in
                    !segment.isEmpty && segment.count <= 100 && !segment.hasPrefix(".")
                        && segment.unicodeScalars.allSatisfy { $0.isASCII && Self.isNameCharacter($0) }
                }
        guard valid else {
            document.error(
                mapping.path.appending("repository"), at: node.start,
                "'\(text)' is not a repository of \(kind.rawValue); write \(example)")
            return nil
        }
        return text
    }

    private mutating func webhook(_ node: YAMLNode, kind: ForgeKind, forge: String, at path: SpecKeyPath)
        -> WebhookEndpointConfig?
    {
        guard let mapping = document.mapping(node, at: path, expected: "a mapping with 'secret:'") else { return nil }
        mapping.rejectUnknownKeys(allowed: ForgesConfigLoader.webhookKeys)
        var endpoint = WebhookEndpointConfig(path: WebhookEndpointConfig.defaultPath(kind), secret: nil)
        var pathNode = node
        if let routeNode = mapping.value("path"),
            let route = document.nonEmptyString(routeNode, at: path.appending("path"))
        {
            pathNode = routeNode
            if Self.isValidRoute(route) {
                endpoint.path = route
            } else {
                document.error(
                    path.appending("path"), at: routeNode.start,
                    "'\(route)' is not an endpoint path; write one starting with /, such as /hooks/\(kind.rawValue), "
                        + "with letters, digits and - _ . / only")
            }
        }
        if let other = paths[endpoint.path] {
            document.error(
                path.appending("path"), at: pathNode.start,
                "forge '\(other)' already takes webhooks at \(endpoint.path); each forge needs its own path, since the "
                    + "secret is chosen by the path before the body is read (e.g. \(endpoint.path)-\(forge))")
        } else {
            paths[endpoint.path] = forge
        }
        if let secretNode = mapping.value("secret") {
            endpoint.secret = values.secretSource(secretNode, at: path.appending("secret"), what: "the webhook secret")
        }
        signing(mapping, kind: kind, into: &endpoint)
        if endpoint.secret == nil, endpoint.signingToken == nil, !mapping.contains("secret"),
            !mapping.contains("signing-token")
        {
            _ = mapping.required(
                "secret",
                hint: kind == .gitlab
                    ? "GitLab's secret token (`secret:`) or signing token (`signing-token:`), e.g. {env: VARIABLE}"
                    : "the secret the forge signs deliveries with, e.g. `secret: {env: VARIABLE}`")
        }
        if let limitNode = mapping.value("body-limit"),
            let text = document.nonEmptyString(limitNode, at: path.appending("body-limit"))
        {
            if let bytes = ByteSizeParser.bytes(from: text), (1024...25_000_000).contains(bytes) {
                endpoint.maxBodyBytes = Int(bytes)
            } else {
                document.error(
                    path.appending("body-limit"), at: limitNode.start,
                    "expected a size from 1KiB to 25MB (GitHub delivers nothing bigger), such as 5MiB; found '\(text)'")
            }
        }
        return endpoint
    }

    /// GitLab's signed webhooks: `signing-token:` and its `timestamp-tolerance:`.
    private func signing(_ mapping: SpecMapping, kind: ForgeKind, into endpoint: inout WebhookEndpointConfig) {
        let path = mapping.path
        if let node = mapping.value("signing-token") {
            if kind == .gitlab {
                endpoint.signingToken = values.secretSource(
                    node, at: path.appending("signing-token"), what: "the signing token")
            } else {
                document.error(
                    path.appending("signing-token"), at: node.start,
                    "is GitLab's (signed webhooks); \(kind.rawValue) signs with `secret:` alone")
            }
        }
        if let node = mapping.value("timestamp-tolerance") {
            if !mapping.contains("signing-token") {
                document.error(
                    path.appending("timestamp-tolerance"), at: node.start,
                    "is used only with signing-token: (GitLab's signed webhooks carry the timestamp)")
            } else if let seconds = document.duration(node, at: path.appending("timestamp-tolerance")) {
                endpoint.timestampToleranceSeconds = seconds
            }
        }
    }

    private func app(_ node: YAMLNode, kind: ForgeKind, at path: SpecKeyPath) -> GitHubAppConfig? {
        guard kind == .github else {
            document.error(path, at: node.start, "GitHub Apps are GitHub's; \(kind.rawValue) reports with token:")
            return nil
        }
        guard let mapping = document.mapping(node, at: path, expected: "a mapping with 'id:', 'private-key:'") else {
            return nil
        }
        mapping.rejectUnknownKeys(allowed: ForgesConfigLoader.appKeys)
        let id = mapping.required("id", hint: "the App ID from the app's settings page").flatMap {
            values.positiveInteger($0, at: path.appending("id"))
        }
        let key = mapping.required("private-key", hint: "`private-key: {file: path/to/app.private-key.pem}`")
            .flatMap { values.secretSource($0, at: path.appending("private-key"), what: "the app's private key") }
        let installation = mapping.required(
            "installation-id", hint: "the number at the end of the installation's settings URL"
        ).flatMap { values.positiveInteger($0, at: path.appending("installation-id")) }
        guard let id, let key, let installation else { return nil }
        return GitHubAppConfig(appID: id, privateKey: key, installationID: installation)
    }

    /// `checks:`, `comment:`, `supersede:`.
    private func readSwitches(_ mapping: SpecMapping, kind: ForgeKind, into forge: inout ForgeConfig) {
        let path = mapping.path
        if let node = mapping.value("checks"), let checks = document.boolean(node, at: path.appending("checks")) {
            if checks, kind != .github || !mapping.contains("app") {
                document.error(
                    path.appending("checks"), at: node.start,
                    kind == .github
                        ? "check runs need a GitHub App; add app: (id, private-key, installation-id) or remove checks:"
                        : "check runs are GitHub's; \(kind.rawValue) gets commit statuses")
            }
            forge.checksReplaceStatuses = checks
        }
        if let node = mapping.value("comment"), let value = document.boolean(node, at: path.appending("comment")) {
            forge.comment = value
        }
        if let node = mapping.value("supersede"), let value = document.boolean(node, at: path.appending("supersede")) {
            forge.supersede = value
        }
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && isNameCharacter($0) }
    }

    static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar)
    }

    static func isValidRoute(_ route: String) -> Bool {
        route.hasPrefix("/") && route.count <= 200 && !route.contains("//") && !route.contains("/../")
            && !route.hasSuffix("/..")
            && route.unicodeScalars.allSatisfy { $0.isASCII && (isNameCharacter($0) || $0 == "/" || $0 == "~") }
    }
}

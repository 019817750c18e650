import Foundation
import PipeCore
import PipeSpec

/// The values of `forges.yml` that PipeSpec's readers do not know: URLs, secret sources, pipeline names, branch
/// patterns. Each problem is added to the document with its position.
struct ForgeValueReader {
    let document: SpecDocument

    init(_ document: SpecDocument) { self.document = document }

    /// An `http(s)://host[:port][/path]` URL without query or fragment; `http://` is a warning (tokens would
    /// travel in clear).
    func url(_ node: YAMLNode, at path: SpecKeyPath, what: String) -> URL? {
        guard let text = document.nonEmptyString(node, at: path) else { return nil }
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = components.host, !host.isEmpty,
            components.query == nil, components.fragment == nil, components.user == nil, let url = components.url
        else {
            document.error(
                path, at: node.start,
                "'\(text)' is not a URL Pipe can use for \(what); write https://host[:port][/path], e.g. "
                    + "https://ghe.example.com/api/v3, with no query, fragment or user")
            return nil
        }
        if scheme == "http", !["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) {
            document.warning(
                path, at: node.start, "plain http: tokens and links travel unencrypted; use https unless this is a test"
            )
        }
        return url
    }

    /// `{env: NAME}` or `{file: path}`; a value written in place is refused without being repeated.
    func secretSource(_ node: YAMLNode, at path: SpecKeyPath, what: String) -> SecretSource? {
        if node.scalar != nil {
            document.error(
                path, at: node.start,
                "\(what) itself is never written in this file; say where it is read on the coordinator: "
                    + "`\(path.lastKey ?? "secret"): {env: VARIABLE}` or `{file: path}` (relative to the project folder)"
            )
            return nil
        }
        guard let source = document.mapping(node, at: path, expected: "a mapping with 'env:' or 'file:'") else {
            return nil
        }
        source.rejectUnknownKeys(allowed: ForgesConfigShape.secret.keyNames)
        let variable = source.value("env").flatMap { document.nonEmptyString($0, at: path.appending("env")) }
        let file = source.value("file").flatMap { document.nonEmptyString($0, at: path.appending("file")) }
        switch (variable, file) {
        case (let variable?, nil): return .environment(variable)
        case (nil, let file?): return .file(file)
        case (_?, _?): document.error(path, at: node.start, "give 'env:' or 'file:', not both")
        case (nil, nil):
            if !source.contains("env"), !source.contains("file") {
                document.error(path, at: node.start, "say where \(what) is read: 'env: VARIABLE' or 'file: path'")
            }
        }
        return nil
    }

    /// A list of pipeline names, each of which must be in `pipelines/` (when `known` is given).
    func pipelineNames(_ node: YAMLNode, at path: SpecKeyPath, known: [String]?) -> [String] {
        guard let items = document.strings(node, at: path) else { return [] }
        if items.isEmpty { document.error(path, at: node.start, "no pipelines; name at least one") }
        var names: [String] = []
        for item in items {
            if let known, !known.contains(item.text) {
                let suggestion = SpecDocument.suggestion(item.text, among: known)
                document.error(
                    item.path, at: item.node.start,
                    "no pipeline '\(item.text)' in pipelines/"
                        + (suggestion.isEmpty ? " (pipelines: \(known.joined(separator: ", ")))" : suggestion))
                continue
            }
            names.append(item.text)
        }
        return names
    }

    /// Branch or tag name patterns (`main`, `release/*`, `v**`), checked as `trusted-refs:` checks them.
    func refPatterns(_ node: YAMLNode, at path: SpecKeyPath, what: String) -> [String] {
        guard let items = document.strings(node, at: path) else { return [] }
        if items.isEmpty { document.error(path, at: node.start, "no \(what); name at least one") }
        var patterns: [String] = []
        for item in items {
            var text = item.text
            for prefix in ["refs/heads/", "refs/tags/"] where text.hasPrefix(prefix) {
                text = String(text.dropFirst(prefix.count))
            }
            if let problem = TrustedRefPattern.problem(with: text) ?? (text.hasPrefix("refs/") ? "" : nil) {
                document.error(
                    item.path, at: item.node.start,
                    (problem.isEmpty ? "'\(item.text)' is a full ref" : problem)
                        + "; write a \(what == "tags" ? "tag" : "branch") name or pattern such as "
                        + (what == "tags" ? "v* or release-**" : "main, release/* or feature/**"))
                continue
            }
            patterns.append(text)
        }
        return patterns
    }

    /// A whole number of at least 1.
    func positiveInteger(_ node: YAMLNode, at path: SpecKeyPath) -> Int? {
        guard let value = document.integer(node, at: path) else { return nil }
        guard value >= 1 else {
            document.error(path, at: node.start, "must be at least 1, found \(value)")
            return nil
        }
        return value
    }
}

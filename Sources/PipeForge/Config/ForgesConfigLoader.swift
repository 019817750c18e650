import Foundation
import PipeCore
import PipeSpec

/// Reads `forges.yml` with the rules and messages of pipeline files: every problem at once, each with
/// `file:line:column` and its key path, unknown keys with the nearest valid one.
///
/// Beyond the file's shape it checks what it can know without a network: that each pipeline named exists in the
/// project (`pipelines`), that no two forges share a webhook path, that secrets are never written as values, and
/// which settings a forge's kind allows (`signing-token` is GitLab's, `app:` and `checks:` GitHub's).
///
/// ```swift
/// let config = try ForgesConfigLoader(pipelines: project.availablePipelines()).load(projectDirectory: project.url)
/// ```
public struct ForgesConfigLoader: Sendable {
    /// The file in the project folder.
    public static let fileName = "forges.yml"
    static let topLevelKeys = ForgesConfigShape.top.keyNames
    static let forgeKeys = ForgesConfigShape.forge.keyNames
    static let webhookKeys = ForgesConfigShape.webhook.keyNames
    static let pushKeys = ForgesConfigShape.push.keyNames
    static let pullRequestKeys = ForgesConfigShape.pullRequest.keyNames
    static let appKeys = ForgesConfigShape.app.keyNames
    static let forkKeys = ForgesConfigShape.forks.keyNames

    /// The pipelines of the project folder, by name; `nil` skips the check.
    public var pipelines: [String]?

    public init(pipelines: [String]? = nil) { self.pipelines = pipelines }

    /// The project's `forges.yml`, or `nil` when it has none (no forge is configured).
    public func load(projectDirectory: URL) throws(SpecErrors) -> ForgesConfig? {
        let url = projectDirectory.appendingPathComponent(Self.fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try load(url)
    }

    /// Reads the file at `url`.
    public func load(_ url: URL) throws(SpecErrors) -> ForgesConfig {
        try decode(try SpecDocument.read(url)).config
    }

    /// Reads config text; `file` names it in messages.
    public func load(yaml: String, file: String) throws(SpecErrors) -> ForgesConfig {
        try decode(try SpecDocument(yaml: yaml, file: file)).config
    }

    /// For `pipe validate`: the config with its warnings, or every error.
    public func check(_ url: URL) throws(SpecErrors) -> (config: ForgesConfig, warnings: [SpecProblem]) {
        try decode(try SpecDocument.read(url))
    }

    private func decode(_ document: SpecDocument) throws(SpecErrors) -> (config: ForgesConfig, warnings: [SpecProblem])
    {
        var config = ForgesConfig()
        guard let root = document.root,
            let top = document.mapping(root, at: SpecKeyPath(), expected: "a mapping with 'forges:'")
        else {
            if document.root == nil {
                document.error(
                    SpecKeyPath(), at: .start, "the file is empty; add 'forges:' with one forge (see docs/forges.md)")
            }
            let warnings = try document.finish()
            return (config, warnings)
        }
        top.rejectUnknownKeys(allowed: Self.topLevelKeys)
        if let node = top.value("base-url") {
            config.baseURL = ForgeValueReader(document).url(node, at: SpecKeyPath([.key("base-url")]), what: "base-url")
        }
        let forgesPath = SpecKeyPath([.key("forges")])
        if let node = top.required("forges", hint: "name each forge, e.g. forges: {github: {kind: github, …}}"),
            let forges = document.mapping(node, at: forgesPath, expected: "a mapping of forge names to forges")
        {
            var decoder = ForgeDecoder(document: document, pipelines: pipelines)
            for entry in forges.entries {
                if let forge = decoder.forge(entry.key, keyNode: entry.keyNode, entry.value, at: forgesPath) {
                    config.forges.append(forge)
                }
            }
            if forges.entries.isEmpty {
                document.error(forgesPath, at: node.start, "no forges; name at least one (see docs/forges.md)")
            }
        }
        // In reading order, as errors are.
        let warnings = SpecErrors(try document.finish()).problems
        return (config, warnings)
    }
}

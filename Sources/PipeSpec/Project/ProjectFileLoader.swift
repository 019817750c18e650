import Foundation
import PipeCore

/// Reads the project file (`project.yml`), reporting every problem at once with `file:line:column`.
///
/// ```yaml
/// trusted-refs: [main, "release/*", "refs/tags/v*"]
/// ```
///
/// A project without the file has no protected refs: its code is never `release`.
public enum ProjectFileLoader {
    public static let fileName = "project.yml"
    static let topLevelKeys = ProjectFileShape.top.keyNames

    /// The project file of `projectDirectory`, or the defaults when it has none.
    public static func load(projectDirectory: URL) throws(SpecErrors) -> ProjectConfig {
        let url = projectDirectory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return ProjectConfig() }
        return try decode(try SpecDocument.read(url))
    }

    /// Reads project-file text; `file` names it in messages.
    public static func load(yaml: String, file: String) throws(SpecErrors) -> ProjectConfig {
        try decode(try SpecDocument(yaml: yaml, file: file))
    }

    private static func decode(_ document: SpecDocument) throws(SpecErrors) -> ProjectConfig {
        var config = ProjectConfig()
        guard let root = document.root else { return config }
        guard let top = document.mapping(root, at: SpecKeyPath(), expected: "a mapping with 'trusted-refs:'") else {
            try document.finish()
            return config
        }
        top.rejectUnknownKeys(allowed: topLevelKeys)
        let path = SpecKeyPath([.key("trusted-refs")])
        if let node = top.value("trusted-refs"), let items = document.strings(node, at: path) {
            for item in items {
                if let problem = TrustedRefPattern.problem(with: item.text) {
                    document.error(
                        item.path, at: item.node.start,
                        problem + "; write a branch (`main`, `release/*`) or a full ref pattern (`refs/tags/v*`)")
                } else {
                    config.trustedRefs.append(TrustedRefPattern(item.text))
                }
            }
        }
        try document.finish()
        return config
    }
}

import Foundation
import PipeCore

/// Loads the hosts file (`.pipe/hosts.yml`) into `[HostConfig]`, reporting every problem at once.
///
/// Relative paths (`identity-file`, `identity-passphrase-file`, `known-hosts`) are resolved against the hosts
/// file's folder, `~/` against `HOME`. The file is not interpolated. The format is described in
/// `docs/pipeline-format.md`.
public enum HostsFileLoader {
    /// Reads and validates a hosts file.
    public static func load(
        path: URL, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SpecErrors) -> [HostConfig] {
        let file = try SpecFile.read(path)
        let folder = URL(fileURLWithPath: path.path).standardizedFileURL.deletingLastPathComponent()
        return try load(file, baseDirectory: folder, environment: environment)
    }

    /// Validates hosts-file text; `file` names it in messages, `baseDirectory` anchors relative paths.
    public static func load(
        yaml: String, file: String, baseDirectory: URL, environment: [String: String] = [:]
    ) throws(SpecErrors) -> [HostConfig] {
        try load(SpecFile(displayPath: file, text: yaml), baseDirectory: baseDirectory, environment: environment)
    }

    private static func load(
        _ file: SpecFile, baseDirectory: URL, environment: [String: String]
    ) throws(SpecErrors) -> [HostConfig] {
        let root = try file.parse()
        let problems = ProblemCollector(file: file.displayPath, source: file.source)
        let decoder = HostsFileDecoder(baseDirectory: baseDirectory, home: environment["HOME"], problems: problems)
        let hosts = decoder.decode(root)
        guard !problems.hasErrors else {
            throw SpecErrors(problems.problems.filter { $0.severity == .error })
        }
        return hosts
    }
}

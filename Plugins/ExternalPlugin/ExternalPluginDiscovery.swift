import Foundation
import PipeCore

/// Finds external plugins: an executable `pipe-layer-<kind>` in the project's `Plugins/` folder, else in a folder
/// of `PATH`, in that order, the first one winning.
///
/// Never from the checked-out ref: the project folder is the coordinator's own copy (pipelines and plugins are
/// read from it, like the pipeline files), and relative `PATH` entries (`.`, `bin`) are skipped, so what a run
/// checks out can never put a plugin on the search path.
public enum ExternalPluginDiscovery {
    /// The folders searched, in order: `<project>/Plugins`, then the absolute entries of `path`.
    public static func searchFolders(projectDirectory: URL, path: String?) -> [URL] {
        var folders = [projectDirectory.appendingPathComponent("Plugins", isDirectory: true).standardizedFileURL]
        for entry in (path ?? "").split(separator: ":") where entry.hasPrefix("/") {
            let folder = URL(fileURLWithPath: String(entry), isDirectory: true).standardizedFileURL
            if !folders.contains(folder) { folders.append(folder) }
        }
        return folders
    }

    /// The executable for `kind`, or `nil` when none is found (or `kind` is not a valid kind name).
    public static func find(kind: String, projectDirectory: URL, path: String?) -> URL? {
        guard ExternalPluginProtocol.isValidKind(kind) else { return nil }
        for folder in searchFolders(projectDirectory: projectDirectory, path: path) {
            let candidate = folder.appendingPathComponent(ExternalPluginProtocol.executablePrefix + kind)
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// Like `find`, throwing an error that lists where it looked.
    public static func locate(kind: String, projectDirectory: URL, path: String?) throws(ExternalPluginError) -> URL {
        if let found = find(kind: kind, projectDirectory: projectDirectory, path: path) { return found }
        throw .notFound(
            kind: kind, searched: searchFolders(projectDirectory: projectDirectory, path: path).map(\.path))
    }

    /// Every external plugin found, kind → executable (the first found for each kind).
    public static func all(projectDirectory: URL, path: String?) -> [String: URL] {
        var found: [String: URL] = [:]
        for folder in searchFolders(projectDirectory: projectDirectory, path: path) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.hasPrefix(ExternalPluginProtocol.executablePrefix) {
                let kind = String(name.dropFirst(ExternalPluginProtocol.executablePrefix.count))
                let executable = folder.appendingPathComponent(name)
                guard ExternalPluginProtocol.isValidKind(kind), found[kind] == nil, isExecutableFile(executable)
                else { continue }
                found[kind] = executable
            }
        }
        return found
    }

    /// `describe`, remembered for this process while the executable's size and modification time stay the same:
    /// `pipe validate` and the run's catalog ask first, so a layer's attempts need not ask again.
    public static func describeOnce(_ executable: URL, kind: String) throws(ExternalPluginError)
        -> ExternalPluginDescription
    {
        let attributes = try? FileManager.default.attributesOfItem(atPath: executable.path)
        let stamp = DescriptionStamp(
            path: executable.path, kind: kind, size: (attributes?[.size] as? NSNumber)?.int64Value,
            modified: attributes?[.modificationDate] as? Date)
        if let known = describedLock.withLock({ described[stamp] }) { return known }
        let description = try describe(executable, kind: kind)
        describedLock.withLock { described[stamp] = description }
        return description
    }

    private struct DescriptionStamp: Hashable {
        var path: String
        var kind: String
        var size: Int64?
        var modified: Date?
    }

    private static let describedLock = NSLock()
    nonisolated(unsafe) private static var described: [DescriptionStamp: ExternalPluginDescription] = [:]

    /// Runs `executable --describe` (at most `describeTimeoutSeconds`) and parses what it prints.
    public static func describe(_ executable: URL, kind: String) throws(ExternalPluginError)
        -> ExternalPluginDescription
    {
        let process = try PluginProcess.start(
            executable: executable, arguments: [ExternalPluginProtocol.describeArgument],
            environment: ExternalLayerPlugin.pluginEnvironment(extra: [:]),
            workingDirectory: executable.deletingLastPathComponent())
        var output = Data()
        var errors = Data()
        let ending = process.communicate(
            initialInput: Data(), closeInputAfterwards: true,
            timeoutSeconds: ExternalPluginProtocol.describeTimeoutSeconds, cancellation: nil,
            onLine: { line in
                output.append(Data((line + "\n").utf8))
                return .carryOn
            },
            onStderr: { errors.append($0) })
        let stderr = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let said =
            stderr.isEmpty ? "" : " (stderr: \(stderr.split(separator: "\n").suffix(3).joined(separator: " / ")))"
        switch ending {
        case .exited(0): break
        case .exited(let code): throw .badDescription(executable: executable.path, "exited \(code)\(said)")
        case .signaled(let signal):
            throw .badDescription(executable: executable.path, "killed by signal \(signal)\(said)")
        case .timedOut:
            throw .badDescription(
                executable: executable.path,
                "gave no answer within \(Int(ExternalPluginProtocol.describeTimeoutSeconds)) s\(said)")
        case .cancelled, .stopped: throw .badDescription(executable: executable.path, "stopped\(said)")
        }
        do {
            return try ExternalPluginDescription.parse(output, expectedKind: kind)
        } catch {
            throw .badDescription(executable: executable.path, error.message)
        }
    }

    private static func isExecutableFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && access(url.path, X_OK) == 0
    }
}

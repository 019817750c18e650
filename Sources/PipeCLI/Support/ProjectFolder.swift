import Foundation
import PipeBasics
import PipeCore

/// The project folder: the nearest folder, from the current one upwards, that holds `pipelines/`.
///
/// `.pipe/` (Pipe's state) and `artifacts/` (the runs' results) live in it, and pipelines are always read from
/// it, never from a checked-out ref.
public struct ProjectFolder {
    public let url: URL

    public init(url: URL) { self.url = url.standardizedFileURL }

    /// Finds the project folder from `start` upwards, or takes `explicit` (`--project-dir`) as it is.
    public static func locate(explicit: String?, from start: URL) throws -> ProjectFolder {
        if let explicit {
            let url = URL(fileURLWithPath: explicit, relativeTo: start).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw RequestError("--project-dir \(explicit): no such folder") }
            return ProjectFolder(url: url)
        }
        var folder = start.standardizedFileURL
        while true {
            var isDirectory: ObjCBool = false
            let pipelines = folder.appendingPathComponent("pipelines").path
            if FileManager.default.fileExists(atPath: pipelines, isDirectory: &isDirectory), isDirectory.boolValue {
                return ProjectFolder(url: folder)
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        throw RequestError(
            "no project folder: neither \(start.path) nor any folder above it holds `pipelines/`; "
                + "run Pipe inside a project or pass --project-dir")
    }

    public var stateFolder: URL { url.appendingPathComponent(".pipe", isDirectory: true) }
    public var defaultHostsFile: URL { stateFolder.appendingPathComponent("hosts.yml") }
    public var artifactsFolder: URL { url.appendingPathComponent("artifacts", isDirectory: true) }
    public var pipelinesFolder: URL { url.appendingPathComponent("pipelines", isDirectory: true) }

    /// A pipeline argument: a path to a file, or a name found as `pipelines/<name>.yml`.
    public func pipelineFile(for argument: String, currentDirectory: URL) throws -> URL {
        let asPath = URL(fileURLWithPath: argument, relativeTo: currentDirectory).standardizedFileURL
        if FileManager.default.fileExists(atPath: asPath.path),
            argument.contains("/") || argument.hasSuffix(".yml")
                || argument.hasSuffix(".yaml")
        {
            return asPath
        }
        for suffix in [".yml", ".yaml"] {
            let candidate = pipelinesFolder.appendingPathComponent(argument + suffix)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        let known = availablePipelines()
        var message = "no pipeline '\(argument)': neither a file nor pipelines/\(argument).yml"
        if let near = EditDistance.nearest(to: argument, in: known) { message += "; did you mean '\(near)'?" }
        if !known.isEmpty { message += " (pipelines: \(known.joined(separator: ", ")))" }
        throw RequestError(message)
    }

    /// Names of the pipelines in `pipelines/`.
    public func availablePipelines() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: pipelinesFolder.path)) ?? []
        return files.filter { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }
            .map { ($0 as NSString).deletingPathExtension }.sorted()
    }
}

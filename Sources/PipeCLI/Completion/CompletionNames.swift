import Foundation
import PipeCore
import PipeSpec
import PipeStore
import PipeStorePostgres

/// The names completion offers from the project: pipelines and their layers from `pipelines/`, hosts from the hosts
/// file, run ids from the SQLite store. Fast and quiet: no SSH, no network, nothing created; a missing, large or
/// broken file gives no names rather than an error.
struct CompletionNames {
    /// At most this many names of each kind.
    static let limit = 200
    /// Files larger than this are not read while completing.
    static let maximumFileBytes = 1 << 20

    let currentDirectory: URL
    let environment: [String: String]

    /// The names of the project that `--project-dir`, `--hosts-file` and `--store` (as typed so far) select.
    func project(explicitFolder: String?, hostsFile: String?, store: String?) -> ProjectNames {
        let folder = try? ProjectFolder.locate(explicit: explicitFolder, from: currentDirectory)
        return ProjectNames(
            folder: folder, hostsFile: hostsFile.map(resolved) ?? folder?.defaultHostsFile,
            store: store ?? environment[StoreLocation.environmentVariable], currentDirectory: currentDirectory,
            environment: environment)
    }

    private func resolved(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: currentDirectory).standardizedFileURL
    }
}

/// The names of one project folder (none when there is no project folder).
struct ProjectNames {
    let folder: ProjectFolder?
    let hostsFile: URL?
    /// `--store` or `PIPE_STORE`; `nil`: the project's `.pipe/pipe.db`.
    let store: String?
    let currentDirectory: URL
    let environment: [String: String]

    func pipelines() -> [String] {
        Array((folder?.availablePipelines() ?? []).prefix(CompletionNames.limit))
    }

    /// The keys of `layers:` in `pipeline` (a name or a path): the file is parsed, not validated, so completion
    /// never starts the external plugins a validation would ask for their settings.
    func layers(ofPipeline pipeline: String) -> [String] {
        guard let folder, let file = try? folder.pipelineFile(for: pipeline, currentDirectory: currentDirectory),
            Self.isSmallFile(file), let document = try? SpecDocument.read(file),
            let entries = document.root?.mapping?.first(where: { $0.key.keyText == "layers" })?.value.mapping
        else { return [] }
        return Array(entries.compactMap(\.key.keyText).prefix(CompletionNames.limit))
    }

    func hosts() -> [String] {
        guard let hostsFile, Self.isSmallFile(hostsFile),
            let hosts = try? HostsFileLoader.load(path: hostsFile, environment: environment)
        else { return [] }
        return Array(hosts.map(\.name).prefix(CompletionNames.limit))
    }

    /// `last`, then the newest runs' ids, from an SQLite store that already exists; a PostgreSQL store is not asked
    /// (completion does not wait on the network).
    func runIDs() -> [String] {
        let runs = (try? existingStore()?.listRuns(RunFilter(limit: CompletionNames.limit))) ?? nil
        return ["last"] + (runs ?? []).map(\.runID)
    }

    /// The layers of a run (`last`, an id or a unique prefix), from the same store as `runIDs`.
    func layers(ofRun typed: String) -> [String] {
        guard let store = existingStore(), let runID = try? store.resolveRunID(typed),
            let stored = try? store.run(runID)
        else { return [] }
        return Array(stored.record.layers.map(\.name).prefix(CompletionNames.limit))
    }

    /// The project's SQLite store when it already exists: completion creates none, and a PostgreSQL store is not
    /// asked (completion does not wait on the network).
    private func existingStore() -> SQLiteRunStore? {
        guard let folder else { return nil }
        let location: URL
        if let store {
            guard !PostgresTarget.isPostgres(store) else { return nil }
            location = URL(fileURLWithPath: store, relativeTo: currentDirectory).standardizedFileURL
        } else {
            location = SQLiteRunStore.defaultLocation(projectDirectory: folder.url)
        }
        guard FileManager.default.fileExists(atPath: location.path) else { return nil }
        return try? SQLiteRunStore(location: location)
    }

    private static func isSmallFile(_ url: URL) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int
        else { return false }
        return size <= CompletionNames.maximumFileBytes
    }
}

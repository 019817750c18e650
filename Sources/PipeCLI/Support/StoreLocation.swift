import Foundation
import PipeCore
import PipeStore
import PipeStorePostgres

/// Which run store a command uses: `--store`, else `PIPE_STORE`, else the controller config's `store:`, else the
/// project's `.pipe/pipe.db`. A `postgres://` or `postgresql://` URL names a PostgreSQL store; anything else is the
/// path of an SQLite file (relative to the current folder, or for `store:` to the project folder).
enum StoreLocation: Equatable, CustomStringConvertible {
    case sqlite(URL)
    case postgres(PostgresTarget)

    /// The environment variable that names the store when `--store` does not.
    static let environmentVariable = "PIPE_STORE"

    /// Resolves the store named by the command line, the environment or `configured` (the controller config's
    /// `store:`); a PostgreSQL URL is checked (no password in it) before anything connects.
    static func resolve(_ context: CommandContext, project: ProjectFolder, configured: String? = nil) throws
        -> StoreLocation
    {
        if let argument = context.arguments.string("store") {
            return try parse(argument, relativeTo: context.currentDirectory)
        }
        if let named = context.environment[environmentVariable], !named.isEmpty {
            return try parse(named, relativeTo: context.currentDirectory)
        }
        if let configured, !configured.isEmpty { return try parse(configured, relativeTo: project.url) }
        return .sqlite(SQLiteRunStore.defaultLocation(projectDirectory: project.url))
    }

    static func parse(_ text: String, relativeTo folder: URL) throws -> StoreLocation {
        if PostgresTarget.isPostgres(text) { return .postgres(try PostgresTarget(text)) }
        return .sqlite(URL(fileURLWithPath: text, relativeTo: folder).standardizedFileURL)
    }

    /// Opens the store (creating the SQLite file, or the schema in an empty PostgreSQL database).
    /// `PIPE_STORE_RETRY_SECONDS` sets how long a PostgreSQL request waits for a server that is away: after that a
    /// run stops its work and ends `interrupted`.
    func open(environment: [String: String] = [:]) throws -> any RelationalRunStore {
        switch self {
        case .sqlite(let url): return try SQLiteRunStore(location: url)
        case .postgres(let target):
            return try PostgresRunStore(target: target, reconnectSeconds: try Self.retrySeconds(environment))
        }
    }

    static func retrySeconds(_ environment: [String: String]) throws -> Double {
        guard let text = environment["PIPE_STORE_RETRY_SECONDS"] else { return 30 }
        guard let seconds = Double(text), seconds >= 1, seconds <= 3_600 else {
            throw ConfigurationError(
                "PIPE_STORE_RETRY_SECONDS is \"\(text)\": give the seconds a request waits for the run store, "
                    + "from 1 to 3600 (30 when it is not set)")
        }
        return seconds
    }

    /// The file's path, or the server and database (never a password).
    var description: String {
        switch self {
        case .sqlite(let url): return url.path
        case .postgres(let target): return target.description
        }
    }
}

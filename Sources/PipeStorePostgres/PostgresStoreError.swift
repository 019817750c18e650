import PipeCore

/// Why a PostgreSQL run store could not be reached or used; every message names the database (never a password)
/// and says what to do next. Refusals about runs themselves are the SQLite store's `StoreError`s.
public enum PostgresStoreError: Error, CustomStringConvertible, Equatable {
    /// The URL was refused before connecting.
    case badTarget(String)
    /// The server could not be reached or refused the login, within the reconnection time.
    case cannotConnect(target: String, reason: String, seconds: Double)
    /// The database holds tables but not a Pipe run store.
    case notARunStore(target: String, reason: String)
    /// A newer Pipe upgraded the schema.
    case schemaTooNew(target: String, found: Int, supported: Int)
    /// The server failed a request in a way the store cannot work around.
    case database(target: String, PostgresError)

    public var description: String {
        switch self {
        case .badTarget(let message):
            return message
        case .cannotConnect(let target, let reason, let seconds):
            let waited = seconds > 0 ? " (tried for \(Int(seconds.rounded())) s)" : ""
            return "cannot connect to the run store, the \(target)\(waited): \(reason); check that the server runs "
                + "and that this user may log in (a password belongs in ~/.pgpass or PGPASSWORD)"
        case .notARunStore(let target, let reason):
            return "the \(target) is not a Pipe run store (\(reason)); name an empty database, or one Pipe created"
        case .schemaTooNew(let target, let found, let supported):
            return "the run store in the \(target) has schema version \(found), but this Pipe understands versions "
                + "up to \(supported): a newer Pipe has upgraded it. Use that newer Pipe; this Pipe changes nothing"
        case .database(let target, let error):
            return "the run store in the \(target) failed: \(error.message) (while \(error.context))"
        }
    }
}

extension PostgresStoreError: StoreReachabilityError {
    public var meansStoreUnreachable: Bool {
        switch self {
        case .cannotConnect: return true
        case .database(_, let error): return error.isConnectionLost
        default: return false
        }
    }
}

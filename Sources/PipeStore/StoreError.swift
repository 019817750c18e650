import CSQLite

/// Why the run store refused or failed a request; every message says what to do next.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    /// The file was written by a newer Pipe whose schema this Pipe does not know.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// The file is not a Pipe run store (another SQLite database, or not SQLite at all).
    case notARunStore(path: String, reason: String)
    /// Another process kept the store locked for longer than the retries wait.
    case busy(path: String, seconds: Double)
    case runNotFound(String)
    case runExists(String)
    /// The run was marked `interrupted` after its owner was found dead; its record is final.
    case runInterrupted(String)
    case layerNotFound(runID: String, layer: String, known: [String])
    case attemptNotFound(runID: String, layer: String, attempt: Int)
    case attemptExists(runID: String, layer: String, attempt: Int)
    /// A value the caller passed cannot be stored (malformed run id, timestamp, JSON payload, …).
    case invalidInput(String)
    /// A stored value cannot be read back (an unknown outcome, broken JSON): the file was changed by hand or by
    /// a newer Pipe.
    case unreadable(path: String, detail: String)
    /// SQLite failed in a way the store cannot work around (disk full, I/O error, damaged file).
    case database(path: String, SQLiteError)

    public var description: String {
        switch self {
        case .schemaTooNew(let path, let found, let supported):
            return "the run store \(path) has schema version \(found), but this Pipe understands versions up to "
                + "\(supported): a newer Pipe has upgraded it. Use that newer Pipe (or upgrade this one); this Pipe "
                + "changes nothing in the file"
        case .notARunStore(let path, let reason):
            return "\(path) is not a Pipe run store (\(reason)); pass the path of a run store, or move this file "
                + "away so Pipe can create a new one there"
        case .busy(let path, let seconds):
            return "the run store \(path) stayed locked by another process for \(Int(seconds.rounded())) s; try "
                + "again, and if it persists look for a hung `pipe` process that has the file open (`fuser \(path)`)"
        case .runNotFound(let runID):
            return "no run '\(runID)' in the run store; `pipe runs list` shows the runs"
        case .runExists(let runID):
            return "the run store already has a run '\(runID)'; run ids are never reused"
        case .runInterrupted(let runID):
            return "run \(runID) was marked interrupted by another pipe process, which found its owner dead; its "
                + "record is final and this change was not written"
        case .layerNotFound(let runID, let layer, let known):
            let list = known.isEmpty ? "it has no layers" : "its layers: " + known.joined(separator: ", ")
            return "run \(runID) has no layer '\(layer)'; \(list)"
        case .attemptNotFound(let runID, let layer, let attempt):
            return "run \(runID), layer \(layer) has no attempt \(attempt); start the attempt before recording its "
                + "results"
        case .attemptExists(let runID, let layer, let attempt):
            return "run \(runID), layer \(layer) already has an attempt \(attempt); a new attempt takes the next number"
        case .invalidInput(let message):
            return message
        case .unreadable(let path, let detail):
            return "the run store \(path) holds a value this Pipe cannot read (\(detail)); was the file changed by "
                + "hand or by a newer Pipe?"
        case .database(let path, let error):
            return "the run store \(path) failed: \(error.message)\(Self.advice(for: error))"
        }
    }

    private static func advice(for error: SQLiteError) -> String {
        switch error.code {
        case SQLITE_FULL: return "; the disk holding it is full: free some space (`pipe runs prune`) and try again"
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_AUTH:
            return "; check that the file and its folder exist and that this user may write both"
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return "; the file is damaged: move it away (Pipe starts a new history) or restore it from a backup"
        case SQLITE_IOERR: return "; the file system reported an I/O error: check the disk and try again"
        default: return " (while \(error.context))"
        }
    }
}

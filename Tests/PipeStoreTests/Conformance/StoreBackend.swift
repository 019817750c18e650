import Foundation
import PipeCore
import PipeStore
import PipeStorePostgres
import PipeTestSupport

/// A run store of either backend, fresh for one test: an SQLite file in a temp folder, or a new database on the
/// test process's PostgreSQL server (`PostgresServer`).
enum StoreBackend: String, CaseIterable {
    case sqlite
    case postgres

    typealias Store = any RelationalRunStore

    /// Opens a new, empty store; `folder` holds the SQLite file.
    func open(in folder: TemporaryDirectory, clock: @escaping () -> Date) throws -> Store {
        switch self {
        case .sqlite:
            return try SQLiteRunStore(location: folder.appending("\(UUID().uuidString).db"), clock: clock)
        case .postgres:
            return try PostgresRunStore(url: try PostgresServer.shared().createDatabase(), clock: clock)
        }
    }
}

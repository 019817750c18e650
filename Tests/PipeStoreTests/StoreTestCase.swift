import Foundation
import PipeStore
import PipeTestSupport
import XCTest

/// A test case with a temp folder and a store in it.
class StoreTestCase: XCTestCase {
    var folder: TemporaryDirectory!
    var storeURL: URL { folder.appending(".pipe/pipe.db") }

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-store")
    }

    override func tearDown() {
        folder?.remove()
    }

    func openStore(clock: @escaping () -> Date = Date.init) throws -> SQLiteRunStore {
        try SQLiteRunStore(location: storeURL, clock: clock)
    }

    /// A second, raw connection to the same file, for checks the store's API does not offer.
    func rawDatabase() throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: storeURL.path)
        try database.execute("PRAGMA foreign_keys = ON")
        return database
    }

    func count(_ table: String, _ database: SQLiteDatabase, where condition: String = "1") throws -> Int64 {
        try database.integer("SELECT count(*) FROM \(table) WHERE \(condition)") ?? -1
    }
}

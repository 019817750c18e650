import Foundation
import PipeCore
import PipeStore
import XCTest

/// The same requests against both backends give the same answers: each test runs its steps on an SQLite store and
/// on a PostgreSQL one, checking each on its own and then comparing what the two answered.
class ConformanceTestCase: StoreTestCase {
    let clock = { StoreFixtures.epoch.addingTimeInterval(3_600) }

    /// Runs `steps` on a fresh store of each backend; returns what each returned, by backend.
    func onBothBackends<T>(_ steps: (StoreBackend.Store, StoreBackend) throws -> T) throws -> [T] {
        try StoreBackend.allCases.map { backend in
            let store = try backend.open(in: folder, clock: clock)
            do {
                return try steps(store, backend)
            } catch {
                XCTFail("on \(backend.rawValue): \(error)")
                throw error
            }
        }
    }

    func assertSame<T: Equatable>(_ answers: [T], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(answers.count, 2, file: file, line: line)
        XCTAssertEqual(answers.first, answers.last, "\(what): SQLite and PostgreSQL differ", file: file, line: line)
    }
}

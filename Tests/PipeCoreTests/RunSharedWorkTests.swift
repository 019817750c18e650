import Foundation
import PipeCore
import XCTest

final class RunSharedWorkTests: XCTestCase {
    func testConcurrentCallersOfOneKeyShareOneComputation() throws {
        let shared = RunSharedWork()
        let computations = Counter()
        let results = Counter()
        let group = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                let value = try? shared.once("build") { () -> Int in
                    computations.increment()
                    Thread.sleep(forTimeInterval: 0.1)  // long enough that the other callers arrive while it runs
                    return 42
                }
                if value == 42 { results.increment() }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(computations.value, 1)
        XCTAssertEqual(results.value, 8)
        XCTAssertTrue(shared.isDone("build"))
    }

    func testForgetWhereDropsOnlyAStaleValue() throws {
        struct Lost: Error {}
        let shared = RunSharedWork()
        let isStale = { (result: Result<Bool, Error>) in (try? result.get()) != true }
        XCTAssertFalse(shared.forget("build", where: isStale), "nothing to forget before the first computation")
        XCTAssertTrue(try shared.once("build") { true })
        XCTAssertFalse(shared.forget("build", where: isStale), "a good build is kept for the retry")
        XCTAssertTrue(shared.isDone("build"))

        XCTAssertThrowsError(try shared.once("other") { () -> Bool in throw Lost() })
        XCTAssertTrue(shared.forget("other", where: isStale), "a failed computation is dropped")
        XCTAssertFalse(shared.isDone("other"))
        XCTAssertTrue(try shared.once("other") { true }, "the next caller computes it again")

        _ = try shared.once("failed") { false }
        XCTAssertTrue(shared.forget("failed", where: isStale))
    }

    func testAFailureIsSharedUntilForgotten() throws {
        struct BuildFailed: Error, Equatable {}
        let shared = RunSharedWork()
        var calls = 0
        XCTAssertThrowsError(
            try shared.once("build") { () -> Int in
                calls += 1
                throw BuildFailed()
            })
        XCTAssertThrowsError(
            try shared.once("build") { () -> Int in
                calls += 1
                return 1
            }
        ) { error in
            XCTAssertEqual(error as? BuildFailed, BuildFailed())
        }
        XCTAssertEqual(calls, 1)
        shared.forget("build")
        XCTAssertEqual(
            try shared.once("build") { () -> Int in
                calls += 1
                return 7
            }, 7)
        XCTAssertEqual(calls, 2)
    }

    func testKeysAreIndependent() throws {
        let shared = RunSharedWork()
        XCTAssertEqual(try shared.once("a") { "first" }, "first")
        XCTAssertEqual(try shared.once("b") { "second" }, "second")
        XCTAssertFalse(shared.isDone("c"))
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

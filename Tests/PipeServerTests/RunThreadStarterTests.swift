import Foundation
import XCTest

@testable import PipeServer

final class RunThreadStarterTests: XCTestCase {
    func testEveryQueuedBodyRunsOnAThreadOfItsOwnAtTheRunsPriority() throws {
        #if os(Linux)
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            let callerNice = getpriority(which, 0)
            let starter = RunThreadStarter(niceness: 7)
            let group = DispatchGroup()
            let seen = Recorder()
            for _ in 0..<5 {
                group.enter()
                starter.start(name: "run") {
                    seen.add(nice: getpriority(which, 0), thread: pthread_self())
                    group.leave()
                }
            }
            XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(seen.nices, Array(repeating: min(callerNice + 7, 19), count: 5))
            XCTAssertFalse(seen.threads.contains(pthread_self()), "not on the caller's thread")
            XCTAssertEqual(getpriority(which, 0), callerNice, "the caller's own priority is left alone")
        #endif
    }
}

private final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var nices: [Int32] = []
    private(set) var threads: Set<pthread_t> = []

    func add(nice: Int32, thread: pthread_t) {
        lock.lock()
        defer { lock.unlock() }
        nices.append(nice)
        threads.insert(thread)
    }
}

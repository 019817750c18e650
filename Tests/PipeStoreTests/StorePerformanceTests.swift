import Foundation
import PipeCore
import PipeStore
import XCTest

/// What recording costs a run, measured on a real file (figures printed for the record; the bound only catches
/// a store gone badly wrong, such as a sync to disk per statement).
final class StorePerformanceTests: StoreTestCase {
    func testCostOfRecordingARunWithTwoLayersAndTwentyTests() throws {
        let store = try openStore()
        let runs = 100
        var seconds: [Double] = []
        for index in 0..<runs {
            let runID = StoreFixtures.runID(index)
            let started = Date()
            try SimulatedRun.perform(store, runID: runID, commit: "c\(index % 10)", failing: index % 7 == 0)
            seconds.append(Date().timeIntervalSince(started))
        }
        seconds.sort()
        let median = (seconds[runs / 2 - 1] + seconds[runs / 2]) / 2

        let finished = try store.listRuns(RunFilter(statuses: [.finished]))
        XCTAssertEqual(finished.count, runs)
        let last = try XCTUnwrap(try store.run(finished[0].runID))
        XCTAssertEqual(last.record.layers.map { $0.tests.count }, [10, 10])

        func time(_ body: () throws -> Void) rethrows -> Double {
            let started = Date()
            for _ in 0..<20 { try body() }
            return Date().timeIntervalSince(started) / 20
        }
        let readRun = try time { _ = try store.run(finished[50].runID) }
        let list = try time { _ = try store.listRuns(RunFilter(limit: 50)) }
        let flaky = try time { _ = try store.flakyTests(pipeline: nil, since: nil) }
        let history = try time { _ = try store.testHistory(identifier: "UnitTests/test0()", pipeline: nil, limit: 20) }
        print(
            String(
                format: "store cost: one run (%d transactions: 2 layers, 20 tests, %d events) median %.2f ms, "
                    + "p90 %.2f ms, max %.2f ms over %d runs; reading one run %.2f ms, listing 50 %.2f ms, "
                    + "flaky over %d runs %.2f ms, a test's history %.2f ms",
                SimulatedRun.writesPerRun, SimulatedRun.eventsPerRun, median * 1000, seconds[runs * 9 / 10] * 1000,
                seconds[runs - 1] * 1000, runs, readRun * 1000, list * 1000, runs, flaky * 1000, history * 1000))
        XCTAssertLessThan(median, 1.0, "recording one run should take milliseconds")
    }
}

import Foundation
import PipeCore
import PipeReport
import XCTest

/// `ReportAssembler` on inputs no capture shows, built here from the grammar `apple-formats.md` describes.
final class ReportAssemblerTests: XCTestCase {
    private func assemble(
        log: String, chunkSize: Int = 1 << 20, options: ReportAssembler.Options = .init()
    ) throws -> (result: ReportResult, events: [RunEvent]) {
        let recorder = EventRecorder()
        let assembler = ReportAssembler(options: options, events: recorder)
        assembler.beginLog(source: "xcodebuild.log")
        let data = Data(log.utf8)
        var offset = 0
        while offset < data.count {
            assembler.feedLog(data.subdata(in: offset..<min(offset + chunkSize, data.count)))
            offset += chunkSize
        }
        assembler.endLog()
        return (try XCTUnwrap(assembler.finish()), recorder.events)
    }

    private func finishedTests(_ events: [RunEvent]) -> [String] {
        events.compactMap {
            if case .testFinished(_, let result) = $0 { return "\(result.identifier) \(result.status.rawValue)" }
            return nil
        }
    }

    /// In serial runs Swift Testing tests are told twice, by the library (without their suite) and by xcodebuild.
    func testSwiftTestingTestsToldTwiceCountOnce() throws {
        let log = """
            ◇ Test example2() started.
            ✘ Test example2() recorded an issue at TestingProjectTests.swift:18:9: Expectation failed: 1 == 2
            ✘ Test example2() failed after 0.001 seconds with 1 issue.
            Test case 'TestingProjectTests/example2()' failed on 'Clone 1 of iPhone 16 Pro - TestingProject (10221)' (0.002 seconds)
            ✔ Test example() passed after 0.001 seconds.
            Test case 'TestingProjectTests/example()' passed on 'Clone 1 of iPhone 16 Pro - TestingProject (10221)' (0.000 seconds)

            ** TEST FAILED **

            """
        let (result, _) = try assemble(log: log, options: .init(exitCode: 65))
        let tests = try XCTUnwrap(result.record.layers.first?.tests)
        XCTAssertEqual(tests.map(\.identifier), ["TestingProjectTests/example2()", "TestingProjectTests/example()"])
        XCTAssertEqual(tests.first?.failureMessage, "Expectation failed: 1 == 2")
        XCTAssertEqual(tests.first?.failureLocation, "TestingProjectTests.swift:18:9")
        XCTAssertEqual(result.record.layers.first?.outcome, .testsFailed)
    }

    /// The same test ended again by the same kind of line ran again: the earlier run is kept apart, never counted.
    func testATestThatRanAgainIsOneTestWithAnEarlierRun() throws {
        let log = """
            Test Case '-[M.SuiteTests testA]' failed (0.010 seconds).
            Test Case '-[M.SuiteTests testB]' passed (0.010 seconds).
            Test Case '-[M.SuiteTests testA]' failed (0.010 seconds).
            Test Case '-[M.SuiteTests testA]' passed (0.010 seconds).
            ** TEST SUCCEEDED **

            """
        let (result, events) = try assemble(log: log, chunkSize: 5, options: .init(exitCode: 0))
        XCTAssertEqual(
            finishedTests(events),
            [
                "SuiteTests/testA() failed", "SuiteTests/testB() passed", "SuiteTests/testA() failed",
                "SuiteTests/testA() passed",
            ])
        XCTAssertEqual(result.record.layers.first?.tests.map(\.status), [.passed, .passed])
        XCTAssertEqual(
            result.earlierRuns["tests"]?.map(\.status), [.failed, .failed], "passed earlier runs tell nothing")
        XCTAssertEqual(result.record.layers.first?.outcome, .flaky)
        XCTAssertEqual(result.exitCode, .success)
    }

    func testEventsComeInTheOrderARunEmitsThem() throws {
        let (_, events) = try assemble(
            log: "Test Case '-[M.C t]' passed (0.001 seconds).\n** TEST SUCCEEDED **\n",
            options: .init(layer: "unit", exitCode: 0))
        XCTAssertEqual(events.map(\.typeName), ["layer-started", "test-finished", "layer-finished", "run-finished"])
        XCTAssertEqual(events.compactMap(\.layerName), ["unit", "unit", "unit"])
    }

    func testNothingReadIsNoReport() {
        let assembler = ReportAssembler(options: .init(), events: EventRecorder())
        assembler.beginLog(source: "-")
        assembler.feedLog(Data([0, 1, 2]))
        assembler.endLog()
        XCTAssertNil(assembler.finish())
        XCTAssertEqual(assembler.problems.first?.position, "line 1 (byte 0)")
    }
}

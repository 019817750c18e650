import Foundation

/// Prints XCTest's console lines the way they appear in `xcodebuild test` output on a Mac (apple-formats.md 3.2)
/// and records each finished test for the result bundle.
///
/// Both runners drive it: the canned runner from its fixture, the real runner from translated Linux XCTest lines.
final class XCTestReporter {
    private let output: EmulatorOutput
    private var current: RunningTest?
    private(set) var tests: [ResultBundleRecord.TestCase] = []
    /// Called after each finished test with the number finished so far (the crash fault counts with it).
    var onTestFinished: ((Int) -> Void)?
    /// Set by the crash fault when running in-process: the runner stops at once, as if the process had died.
    var stopRequested = false

    init(output: EmulatorOutput) {
        self.output = output
    }

    /// The test that started and has not finished (a crash leaves one behind).
    var runningTest: TestIdentity? { current?.identity }

    var failedTests: [ResultBundleRecord.TestCase] { tests.filter { $0.status == "failed" } }

    func suiteStarted(_ name: String, timestamp: String) {
        output.line("Test Suite '\(name)' started at \(timestamp).")
    }

    func suiteFinished(_ name: String, passed: Bool, timestamp: String) {
        output.line("Test Suite '\(name)' \(passed ? "passed" : "failed") at \(timestamp).")
    }

    /// `\t Executed 5 tests, with 1 test skipped and 1 failure (0 unexpected) in 0.699 (0.700) seconds`
    func executed(total: Int, skipped: Int, failures: Int, unexpected: Int, testSeconds: Double, wallSeconds: Double) {
        var text = "\t Executed \(total) test\(total == 1 ? "" : "s"), with "
        // Apple writes "test skipped" even for several (apple-formats.md 3.2).
        if skipped > 0 { text += "\(skipped) test skipped and " }
        text += "\(failures) failure\(failures == 1 ? "" : "s") (\(unexpected) unexpected) in "
        text += "\(Self.seconds(testSeconds)) (\(Self.seconds(wallSeconds))) seconds"
        output.line(text)
    }

    func caseStarted(_ identity: TestIdentity) {
        current = RunningTest(identity: identity)
        output.line("Test Case '\(identity.objectiveCName)' started.")
    }

    /// `/path/File.swift:21: error: -[T.C m] : message`
    func caseFailure(file: String?, line: Int?, message: String) {
        guard let identity = current?.identity else {
            output.line(message)
            return
        }
        current?.failures.append(.init(file: file, line: line, message: message))
        output.line("\(file ?? "<unknown>"):\(line ?? 0): error: \(identity.objectiveCName) : \(message)")
    }

    /// `/path/File.swift:12: -[T.C m] : Test skipped - reason`
    func caseSkipNotice(file: String?, line: Int?, reason: String) {
        guard let identity = current?.identity else { return }
        current?.skip = .init(file: file, line: line, message: reason)
        let suffix = reason.isEmpty ? "" : " - \(reason)"
        output.line("\(file ?? "<unknown>"):\(line ?? 0): \(identity.objectiveCName) : Test skipped\(suffix)")
    }

    /// `Test Case '-[T.C m]' passed (0.002 seconds).`
    func caseFinished(status: String, duration: Double) {
        guard let running = current else { return }
        current = nil
        output.line("Test Case '\(running.identity.objectiveCName)' \(status) (\(Self.seconds(duration)) seconds).")
        let finished = ResultBundleRecord.TestCase(
            target: running.identity.target, suite: running.identity.suite, name: running.identity.name,
            status: status, duration: duration, failures: running.failures, skipReason: running.skip)
        // A test run again right after it failed (`-retry-tests-on-failure`) is one test whose last run counts:
        // the bundle keeps that one (a real bundle also keeps each run as a repetition).
        if let last = tests.last, last.target == finished.target, last.suite == finished.suite,
            last.name == finished.name, last.status == "failed"
        {
            tests[tests.count - 1] = finished
        } else {
            tests.append(finished)
        }
        onTestFinished?(tests.count)
    }

    /// A crashed test process: prints Xcode's restart line and records the running test (if any) as failed.
    func caseCrashed(reason: String) {
        guard let running = current else {
            output.line(
                "Restarting after unexpected exit, crash, or test timeout; summary will include totals from previous "
                    + "launches.")
            return
        }
        current = nil
        output.line(
            "Restarting after unexpected exit, crash, or test timeout in \(running.identity.failingTestsName); "
                + "summary will include totals from previous launches.")
        tests.append(
            .init(
                target: running.identity.target, suite: running.identity.suite, name: running.identity.name,
                status: "failed", duration: 0,
                failures: running.failures + [.init(file: nil, line: nil, message: reason)], skipReason: nil))
        onTestFinished?(tests.count)
    }

    /// Any other line the test process printed.
    func passthrough(_ line: String) {
        output.line(line)
    }

    /// Durations in XCTest lines: always three decimals with a dot.
    static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    /// `2023-10-31 15:59:00.826` in the host's local time, as XCTest prints suite times.
    static func timestamp(_ date: Date = Date()) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&time, &parts)
        let millis = Int((date.timeIntervalSince1970 - Double(time)) * 1000)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), min(millis, 999))
    }

    /// The test between its "started" and its result line.
    private struct RunningTest {
        let identity: TestIdentity
        var failures: [ResultBundleRecord.Issue] = []
        var skip: ResultBundleRecord.Issue?
    }
}

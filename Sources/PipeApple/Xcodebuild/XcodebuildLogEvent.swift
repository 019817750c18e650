import PipeCore

/// Something `XcodebuildLogParser` recognised in the log, in the order the lines arrived.
public enum XcodebuildLogEvent: Equatable, Sendable {
    /// Which kind of line reported a test, so a consumer can tell duplicates apart: in serial runs Swift Testing
    /// tests may be reported both by the testing library and by xcodebuild.
    public enum Origin: String, Sendable {
        /// `Test Case '-[M.C t]' passed (…)`: XCTest, serial.
        case xctest
        /// `Test case 'C.t()' passed on '…' (…)`: xcodebuild's own line (parallel XCTest, Swift Testing).
        case xcodebuild
        /// `✔ Test t() passed after … seconds.`: the Swift Testing library.
        case swiftTesting = "swift-testing"
    }

    case testStarted(identifier: String)
    /// A test ended; a failure carries the first issue recorded for it, when the log had one.
    case testFinished(TestCaseResult, origin: Origin)
    /// An assertion failure or recorded issue, before its test ends (`File.swift:71`, the message).
    case testIssue(identifier: String, location: String?, message: String)
    /// `Restarting after unexpected exit, crash, or test timeout…`: a test process crashed or hung.
    case testRunnerRestarted(line: String)
    case banner(XcodebuildBanner)
    /// Where the result bundle is (the last one printed wins).
    case resultBundlePath(String)
    /// `path:line:column: error: message`.
    case compilerError(location: String, message: String)
    /// `xcodebuild: error: …`, `xcode-select: error: …`, `xcrun: error: …` (the whole line).
    case toolError(String)
    /// A test named under `Failing tests:` (normalized).
    case failingTestListed(String)
    /// A line under `Testing failed:`.
    case testingFailed(String)
    /// A line under `The following build commands failed:`.
    case buildCommandFailed(String)
}

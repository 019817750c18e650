import Foundation
import PipeCore

/// Streams an `xcodebuild test` log (stdout and stderr chunks as they arrive) into typed events and the
/// `XcodebuildLogFacts` the verdict needs.
///
/// Feed it `Data` in any chunking: lines split across chunks and UTF-8 characters split across chunks are put
/// back together; LF, CR and CRLF all end a line. Lines after the final banner are still read (over SSH without
/// a TTY, some stdout lines arrive after it). Memory stays flat: lines are cut at `maxLineBytes`, every list in
/// the facts is bounded, and issues waiting for their test to end are capped.
///
/// Feed stdout and stderr to separate parsers, or to one parser only in whole lines: a line is only whole within
/// one stream.
public final class XcodebuildLogParser {
    /// Everything read so far.
    public internal(set) var facts = XcodebuildLogFacts()

    private var assembler: LineAssembler
    private var block: Block = .none
    private var pendingEvents: [XcodebuildLogEvent] = []
    /// First issue per test that has not ended yet, oldest first; capped at `pendingIssueLimit`.
    private var pendingIssues: [PendingIssue] = []
    private let pendingIssueLimit = 64

    /// An issue waiting for its test to end; `failure` names the kind of line that reports such a test when the
    /// issue fails it (an assertion, a Swift Testing issue), `nil` for a skip reason.
    struct PendingIssue {
        var identifier: String
        var location: String?
        var message: String
        var failure: XcodebuildLogEvent.Origin?
    }

    private enum Block {
        case none
        case failingTests
        case testingFailed(sawItem: Bool)
        case buildCommandsFailed
        case resultBundlePath
        /// The line after `Command line invocation:`.
        case commandLine
        /// Indented lines after `xcodebuild: error: …` (the cause of a package resolution failure, for example).
        case toolErrorDetails(remaining: Int)
    }

    /// - Parameter maxLineBytes: longer lines are cut (the recognised lines are all far shorter).
    public init(maxLineBytes: Int = 64 * 1024) {
        assembler = LineAssembler(maxLineBytes: maxLineBytes)
    }

    /// Reads a chunk and returns the events of the lines it completed.
    public func feed(_ chunk: Data) -> [XcodebuildLogEvent] {
        assembler.append(chunk) { read(line: $0) }
        return takeEvents()
    }

    /// Reads the last line when the log did not end with a newline; call once at the end.
    public func finish() -> [XcodebuildLogEvent] {
        assembler.finish { read(line: $0) }
        block = .none
        // A test that failed an assertion and never ended (the run died, or `swift test` cut it off) failed.
        for issue in pendingIssues where issue.failure != nil {
            finishTest(
                TestCaseResult(
                    identifier: issue.identifier, status: .failed, failureMessage: issue.message,
                    failureLocation: issue.location),
                origin: issue.failure ?? .xctest)
        }
        pendingIssues.removeAll()
        return takeEvents()
    }

    /// Parses a whole log at once (fixtures, a log read back from disk).
    public static func parse(_ log: Data) -> (events: [XcodebuildLogEvent], facts: XcodebuildLogFacts) {
        let parser = XcodebuildLogParser()
        let events = parser.feed(log) + parser.finish()
        return (events, parser.facts)
    }

    private func takeEvents() -> [XcodebuildLogEvent] {
        defer { pendingEvents.removeAll(keepingCapacity: true) }
        return pendingEvents
    }

    func emit(_ event: XcodebuildLogEvent) {
        pendingEvents.append(event)
    }

    // MARK: - Lines

    private func read(line raw: UnsafeBufferPointer<UInt8>) {
        guard let clean = ControlSequences.stripped(raw) else { return read(cleanLine: raw) }
        clean.withUnsafeBufferPointer { read(cleanLine: $0) }
    }

    /// A line without control sequences (colours from a terminal, or a wrapper that keeps them).
    private func read(cleanLine line: UnsafeBufferPointer<UInt8>) {
        facts.lineCount += 1
        let bytes = Self.withoutFastlanePrefix(line)
        scanAnywhere(bytes)
        if readsBlockItem(bytes) { return }
        readStartOfLine(bytes)
    }

    /// Lines under a block header (`Failing tests:` and the like); `true` when the line belonged to the block.
    private func readsBlockItem(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let isBlank = bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 }
        let isIndented = bytes.first == 0x09 || (bytes.count > 1 && bytes[0] == 0x20 && bytes[1] == 0x20)
        switch block {
        case .none:
            return false
        case .toolErrorDetails(let remaining):
            guard bytes.first == 0x09 || bytes.first == 0x20, !isBlank, remaining > 0 else {
                block = .none
                return false
            }
            facts.toolErrorDetails.append(Self.text(bytes).trimmingCharacters(in: .whitespaces))
            block = .toolErrorDetails(remaining: remaining - 1)
            return true
        case .commandLine:
            // Some logs put a blank line, and the command unindented, after the header.
            if isBlank { return true }
            block = .none
            let line = Self.text(bytes)
            guard isIndented || line.hasPrefix("/") || line.hasPrefix("xcodebuild ") else { return false }
            for action in XcodebuildRequestedAction.actions(inInvocation: line) {
                facts.invokedActions.append(action)
            }
            return true
        case .resultBundlePath:
            if isBlank { return true }
            block = .none
            guard isIndented else { return false }
            let path = Self.text(bytes).trimmingCharacters(in: .whitespaces)
            facts.resultBundlePath = path
            emit(.resultBundlePath(path))
            return true
        case .failingTests:
            guard isIndented, !isBlank else {
                block = .none
                return isBlank
            }
            let item = Self.text(bytes).trimmingCharacters(in: .whitespaces)
            // Xcode 11–13 group the list by target: `\tTarget:` then `\t\tClass.test()`.
            if item.hasSuffix(":"), !item.contains("(") { return true }
            let identifier = TestIdentifier.normalize(item)
            facts.failingTestsListed.append(identifier)
            emit(.failingTestListed(identifier))
            return true
        case .testingFailed(let sawItem):
            if isBlank {
                if sawItem { block = .none }
                return true
            }
            guard isIndented else {
                block = .none
                return false
            }
            let item = Self.text(bytes).trimmingCharacters(in: .whitespaces)
            facts.testingFailedLines.append(item)
            if let test = Self.crashedTest(in: item) { facts.crashedTestsNamed.append(test) }
            emit(.testingFailed(item))
            block = .testingFailed(sawItem: true)
            return true
        case .buildCommandsFailed:
            let item = Self.text(bytes).trimmingCharacters(in: .whitespaces)
            if isBlank || !isIndented {
                block = .none
                // `(2 failures)` closes the block and is part of it.
                return isBlank || (item.hasPrefix("(") && item.hasSuffix(")"))
            }
            facts.buildCommandsFailed.append(item)
            emit(.buildCommandFailed(item))
            return true
        }
    }

    /// Texts that matter wherever they appear, in any line (block items included).
    private func scanAnywhere(_ bytes: UnsafeBufferPointer<UInt8>) {
        if Self.contains(bytes, Needle.buildFailedNote) { facts.testingCancelledBecauseBuildFailed = true }
        if Self.contains(bytes, Needle.noSpace) || Self.contains(bytes, Needle.notEnoughDiskSpace) {
            facts.diskFullLines.append(Self.text(bytes))
        }
        if TestRunnerFailure.needles.contains(where: { Self.contains(bytes, $0) }) {
            facts.testRunnerFailureLines.append(Self.text(bytes).trimmingCharacters(in: .whitespaces))
            // `t = 46.77s Assertion Failure: … Failure attempting to launch`: the running test failed by the runner.
            if let running = facts.runningTest, facts.failedByTheRunner.count < XcodebuildLogFacts.failingNowLimit {
                facts.failedByTheRunner.insert(running)
            }
        }
        if SigningFailure.needles.contains(where: { Self.contains(bytes, $0) }) {
            let line = Self.text(bytes).trimmingCharacters(in: .whitespaces)
            if SigningFailure.isError(line) { facts.signingErrorLines.append(line) }
        }
        if Self.contains(bytes, Needle.mustBeEnabled) {
            let line = Self.text(bytes)
            facts.untrustedPackageExtensionLines.append(
                String(line[(line.range(of: "error: ")?.upperBound ?? line.startIndex)...]))
        }
        if Self.contains(bytes, Needle.executionTimeAllowance) {
            facts.executionTimeAllowanceLines.append(Self.text(bytes))
        }
        if let range = Self.range(of: Needle.errorResultBundle, in: bytes) {
            let path = Self.text(UnsafeBufferPointer(rebasing: bytes[range.upperBound...]))
                .trimmingCharacters(in: .whitespaces)
            facts.errorResultBundlePath = path
        }
    }

    /// Starts of lines that only xcodebuild prints.
    private static let xcodebuildLineStarts = [
        "Build settings from command line:", "User defaults from command line:", "=== BUILD", "=== CLEAN",
        "Test session results", "Testing started", "Writing result bundle", "Prepare packages", "Check dependencies",
        "CompileC ", "CompileSwift ", "CompileSwiftSources ", "SwiftCompile ", "SwiftDriver ", "SwiftEmitModule ",
        "Ld ", "ProcessInfoPlistFile ", "PhaseScriptExecution ", "CodeSign ", "CpResource ", "ProcessPCH ",
        "CompileStoryboard ", "CompileAssetCatalog ", "WriteAuxiliaryFile ", "CreateBuildDirectory ", "Libtool ",
        "GenerateDSYMFile ", "Validate ", "Touch ", "ComputeTargetDependencyGraph",
    ].map { Array($0.utf8) }

    private func noteXcodebuildOutput(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !facts.sawXcodebuildOutput else { return }
        if Self.xcodebuildLineStarts.contains(where: { bytes.starts(with: $0) })
            || Self.contains(bytes, Needle.xcodebuildProcess)
        {
            facts.sawXcodebuildOutput = true
        }
    }

    private func readStartOfLine(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let first = bytes.first else { return }
        noteXcodebuildOutput(bytes)
        switch first {
        case UInt8(ascii: "*"):
            if let banner = XcodebuildBanner.parse(Self.text(bytes)) {
                facts.banner = banner
                facts.banners.append(banner)
                emit(.banner(banner))
            }
        case UInt8(ascii: "T"):
            let line = Self.text(bytes)
            if line.hasPrefix("Test Case '") || line.hasPrefix("Test case '") {
                readTestCaseLine(line)
            } else if line.hasPrefix("Test Suite '") {
                readTestSuiteLine(line)
            } else if line == "Testing failed:" {
                block = .testingFailed(sawItem: false)
            } else if line.hasPrefix("Test session results, code coverage, and logs:") {
                block = .resultBundlePath
            } else if line == "The following build commands failed:" {
                block = .buildCommandsFailed
            }
        case UInt8(ascii: "F"):
            if Self.text(bytes) == "Failing tests:" { block = .failingTests }
        case UInt8(ascii: "C"):
            let line = Self.text(bytes)
            if line.hasPrefix("Command line invocation:") {
                block = .commandLine
            } else if line.hasSuffix(" failed with a nonzero exit code") {
                facts.failedBuildSteps.append(line)
            }
        case UInt8(ascii: "E"), 0x09, 0x20:
            if Self.contains(bytes, Needle.executed) { readExecutedLine(Self.text(bytes)) }
        case UInt8(ascii: "W"), UInt8(ascii: "R"):
            let line = Self.text(bytes)
            if line.hasPrefix("Writing result bundle at path:") || line.hasPrefix("Result bundle written to path:") {
                block = .resultBundlePath
            } else if line.hasPrefix("Restarting after unexpected exit, crash, or test timeout") {
                facts.restartLines.append(line)
                // The crashed process left its suites open; the restarted one opens its own.
                facts.openSuites.removeAll()
                emit(.testRunnerRestarted(line: line))
            }
        case UInt8(ascii: "x"):
            let line = Self.text(bytes)
            if line.hasPrefix("xcodebuild: error:") || line.hasPrefix("xcode-select: error:")
                || line.hasPrefix("xcrun: error:")
            {
                facts.toolErrors.append(line)
                emit(.toolError(line))
                block = .toolErrorDetails(remaining: 8)
            }
        case 0x80...:
            // Swift Testing: a symbol (maybe a private-use SF Symbol, maybe after U+200B) before `Test …`.
            readSwiftTestingLine(Self.text(bytes))
        default:
            break
        }
        if Self.contains(bytes, Needle.error) { readErrorLine(Self.text(bytes)) }
        if Self.contains(bytes, Needle.fatalError) { readFatalErrorLine(Self.text(bytes)) }
        if Self.contains(bytes, Needle.testSkipped) { readSkipLine(Self.text(bytes)) }
    }

    /// `… (Underlying Error: Crash: TestingProject (65214) TestingProjectTests.example3()))`: the test whose process
    /// crashed, as `Suite/test()`.
    static func crashedTest(in line: String) -> String? {
        guard let crash = line.range(of: "Crash: ") else { return nil }
        let rest = line[crash.upperBound...]
        guard let pid = rest.range(of: #"\(\d+\) "#, options: .regularExpression) else { return nil }
        var name = Substring(rest[pid.upperBound...])
        // Drop the parentheses that close the error around it, keeping the test's own `()`.
        while name.hasSuffix(")"), name.filter({ $0 == ")" }).count > name.filter({ $0 == "(" }).count {
            name = name.dropLast()
        }
        guard name.hasSuffix(")"), !name.contains(" ") else { return nil }
        return TestIdentifier.normalize(String(name))
    }

    // MARK: - Issues waiting for their test

    func recordIssue(
        identifier: String, location: String?, message: String, failure: XcodebuildLogEvent.Origin? = nil
    ) {
        emit(.testIssue(identifier: identifier, location: location, message: message))
        guard !pendingIssues.contains(where: { $0.identifier == identifier }) else { return }
        if pendingIssues.count >= pendingIssueLimit { pendingIssues.removeFirst() }
        pendingIssues.append(
            PendingIssue(identifier: identifier, location: location, message: message, failure: failure))
    }

    func finishTest(_ result: TestCaseResult, origin: XcodebuildLogEvent.Origin) {
        var result = result
        if let index = pendingIssues.firstIndex(where: { $0.identifier == result.identifier }) {
            let issue = pendingIssues.remove(at: index)
            if result.status != .passed {
                result.failureMessage = result.failureMessage ?? issue.message
                result.failureLocation = result.failureLocation ?? issue.location
            }
        }
        facts.count(result.status, origin: origin)
        facts.track(result)
        if facts.runningTest == result.identifier { facts.runningTest = nil }
        if result.status == .failed { facts.failedTests.append(result) }
        emit(.testFinished(result, origin: origin))
    }

    func startTest(_ identifier: String, byXCTest: Bool) {
        facts.lastStartedTest = identifier
        facts.runningTest = identifier
        facts.runningTestIsXCTest = byXCTest
        emit(.testStarted(identifier: identifier))
    }

    // MARK: - Bytes

    enum Needle {
        static let error = Array(": error: ".utf8)
        static let executed = Array("Executed ".utf8)
        static let testSkipped = Array(" : Test skipped".utf8)
        static let fatalError = Array("Fatal error: ".utf8)
        static let mustBeEnabled = Array(" must be enabled before it can be used".utf8)
        static let xcodebuildProcess = Array(" xcodebuild[".utf8)
        static let noSpace = Array("No space left on device".utf8)
        static let notEnoughDiskSpace = Array("not enough disk space".utf8)
        static let executionTimeAllowance = Array("exceeded execution time allowance".utf8)
        static let errorResultBundle = Array("Writing error result bundle to ".utf8)
        static let buildFailedNote = Array("Testing cancelled because the build failed.".utf8)
    }

    /// fastlane prints xcodebuild's lines as `[15:48:35]: ▸ ** TEST FAILED **`: the line is what follows.
    static func withoutFastlanePrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let prefix = Array("[00:00:00]: ".utf8)
        guard bytes.count > prefix.count, bytes[0] == UInt8(ascii: "["), bytes[9] == UInt8(ascii: "]"),
            bytes[10] == UInt8(ascii: ":"), bytes[11] == 0x20,
            [1, 2, 4, 5, 7, 8].allSatisfy({ (0x30...0x39).contains(bytes[$0]) })
        else { return bytes }
        var start = prefix.count
        let arrow = Array("▸ ".utf8)
        if bytes.count >= start + arrow.count, Array(bytes[start..<(start + arrow.count)]) == arrow {
            start += arrow.count
        }
        return UnsafeBufferPointer(rebasing: bytes[start...])
    }

    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        range(of: needle, in: bytes) != nil
    }

    /// Byte offsets of the first occurrence of `needle`: `memchr` to the candidate first bytes, then a compare, since
    /// this runs on every line of a large log.
    static func range(of needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let base = bytes.baseAddress, let head = needle.first, bytes.count >= needle.count else { return nil }
        let lastStart = bytes.count - needle.count
        var offset = 0
        while offset <= lastStart {
            guard let hit = memchr(base + offset, Int32(head), lastStart - offset + 1) else { return nil }
            let start = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            if memcmp(base + start, needle, needle.count) == 0 { return start..<(start + needle.count) }
            offset = start + 1
        }
        return nil
    }
}

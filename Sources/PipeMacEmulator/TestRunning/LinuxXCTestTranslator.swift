import Foundation

/// Reads swift-corelibs-xctest console lines (Linux) and drives an `XCTestReporter`, which prints them the way
/// XCTest prints them on Apple platforms:
///
/// | Linux | Apple |
/// |---|---|
/// | `Test Case 'ReadingIDTests.testX' started at 2026-…` | `Test Case '-[ReaderTests.ReadingIDTests testX]' started.` |
/// | `Test Case 'ReadingIDTests.testX' passed (0.0 seconds)` | `Test Case '-[ReaderTests.ReadingIDTests testX]' passed (0.000 seconds).` |
/// | `/p/F.swift:21: error: ReadingIDTests.testX : XCTAssertEqual failed: … - ` | `/p/F.swift:21: error: -[ReaderTests.ReadingIDTests testX] : XCTAssertEqual failed: …` |
/// | `Test Suite 'debug.xctest' started at 2026-…` | `Test Suite 'ReaderTests.xctest' started at 2026-….` |
final class LinuxXCTestTranslator {
    private let reporter: XCTestReporter
    /// Suite (class) name → test target (module), from the test binary's `--list-tests`.
    private let suiteTargets: [String: String]
    /// What Linux calls the single test bundle (`debug.xctest`) is printed as this.
    private let bundleName: String
    /// "All tests" or "Selected tests", as Xcode would name the top suite for this run.
    private let topSuiteName: String

    init(reporter: XCTestReporter, suiteTargets: [String: String], bundleName: String, topSuiteName: String) {
        self.reporter = reporter
        self.suiteTargets = suiteTargets
        self.bundleName = bundleName
        self.topSuiteName = topSuiteName
    }

    private static let suiteStarted = regex(#"^Test Suite '(.+)' started at (.+?)\.?$"#)
    private static let suiteFinished = regex(#"^Test Suite '(.+)' (passed|failed) at (.+?)\.?$"#)
    private static let executed = regex(
        #"^\s*Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures? \((\d+) unexpected\) in ([\d.]+) \(([\d.]+)\) seconds$"#
    )
    private static let caseStarted = regex(#"^Test Case '([^'.]+)\.([^'.]+)' started at .+$"#)
    private static let caseFinished = regex(
        #"^Test Case '([^'.]+)\.([^'.]+)' (passed|failed|skipped) \(([\d.]+) seconds\)\.?$"#)
    private static let failure = regex(#"^(.+?):(\d+): error: ([^\s.]+)\.([^\s.]+) : (.*)$"#)
    private static let skip = regex(#"^(.+?):(\d+): ([^\s.]+)\.([^\s.]+) : Test skipped(?: - (.*))?$"#)

    /// Handles one line of the test process's output.
    func consume(_ line: String) {
        if let parts = Self.match(Self.caseStarted, line) {
            reporter.caseStarted(identity(suite: parts[1], name: parts[2]))
        } else if let parts = Self.match(Self.caseFinished, line) {
            reporter.caseFinished(status: parts[3], duration: Double(parts[4]) ?? 0)
        } else if let parts = Self.match(Self.failure, line) {
            reporter.caseFailure(file: parts[1], line: Int(parts[2]), message: Self.appleMessage(parts[5]))
        } else if let parts = Self.match(Self.skip, line) {
            reporter.caseSkipNotice(file: parts[1], line: Int(parts[2]), reason: parts[5])
        } else if let parts = Self.match(Self.suiteStarted, line) {
            reporter.suiteStarted(suiteName(parts[1]), timestamp: parts[2])
        } else if let parts = Self.match(Self.suiteFinished, line) {
            reporter.suiteFinished(suiteName(parts[1]), passed: parts[2] == "passed", timestamp: parts[3])
        } else if let parts = Self.match(Self.executed, line) {
            reporter.executed(
                total: Int(parts[1]) ?? 0, skipped: Int(parts[2]) ?? 0, failures: Int(parts[3]) ?? 0,
                unexpected: Int(parts[4]) ?? 0, testSeconds: Double(parts[5]) ?? 0, wallSeconds: Double(parts[6]) ?? 0)
        } else {
            reporter.passthrough(line)
        }
    }

    /// Linux always appends ` - <custom message>` to an assertion's text, also when the message is empty; Apple
    /// leaves the dash out then.
    static func appleMessage(_ linux: String) -> String {
        var message = linux
        while message.hasSuffix(" ") { message.removeLast() }
        if message.hasSuffix(" -") { message.removeLast(2) }
        return message
    }

    private func identity(suite: String, name: String) -> TestIdentity {
        TestIdentity(
            target: suiteTargets[suite] ?? bundleName.replacingOccurrences(of: ".xctest", with: ""),
            suite: suite, name: name)
    }

    private func suiteName(_ linux: String) -> String {
        if linux == "All tests" || linux == "Selected tests" { return topSuiteName }
        if linux.hasSuffix(".xctest") { return bundleName }
        return linux
    }

    private static func regex(_ pattern: String) -> NSRegularExpression {
        try! NSRegularExpression(pattern: pattern)
    }

    private static func match(_ expression: NSRegularExpression, _ line: String) -> [String]? {
        let range = NSRange(line.startIndex..., in: line)
        guard let result = expression.firstMatch(in: line, range: range) else { return nil }
        return (0..<result.numberOfRanges).map { index in
            Range(result.range(at: index), in: line).map { String(line[$0]) } ?? ""
        }
    }
}

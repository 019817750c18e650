import Foundation
import PipeCore

extension XcodebuildLogParser {
    /// How a test line can end: `passed (…)`, `failed on '…'`, `passed after …` and so on.
    private static let endings: [(verb: String, status: TestCaseResult.Status)] = [
        ("passed", .passed), ("failed", .failed), ("skipped", .skipped),
    ]

    /// `Test Case '-[M.C t]' started.` / `passed (0.001 seconds).` (serial XCTest, also `swift test` on Linux) and
    /// `Test case 'C.t()' passed on '<destination>' (0.001 seconds)` (xcodebuild's own line).
    func readTestCaseLine(_ line: String) {
        let body = line.dropFirst("Test Case '".count)
        if line.hasPrefix("Test case '") {
            for (verb, status) in Self.endings {
                guard let marker = body.range(of: "' \(verb) on '") else { continue }
                let printed = String(body[..<marker.lowerBound])
                let identifier = TestIdentifier.normalize(printed)
                // `Suite/test()` or a global `test()`: Swift Testing, which xcodebuild names with slashes.
                if printed.contains("/") || !printed.contains(".") { facts.xcodebuildReportedSwiftTesting = true }
                let duration = Self.seconds(inParenthesesAtEndOf: body[marker.upperBound...])
                finishTest(
                    TestCaseResult(identifier: identifier, status: status, durationSeconds: duration),
                    origin: .xcodebuild)
                return
            }
            return
        }
        guard let close = body.range(of: "' ") else { return }
        let identifier = TestIdentifier.normalize(String(body[..<close.lowerBound]))
        let tail = body[close.upperBound...]
        if tail.hasPrefix("started") {
            startTest(identifier, byXCTest: true)
            return
        }
        guard let status = Self.endings.first(where: { tail.hasPrefix($0.verb + " (") })?.status else { return }
        let duration = Self.seconds(inParenthesesAtEndOf: tail)
        finishTest(
            TestCaseResult(
                identifier: identifier, status: status, durationSeconds: duration,
                target: TestIdentifier.module(ofPrinted: String(body[..<close.lowerBound]))),
            origin: .xctest)
    }

    /// `✔ Test example() passed after 0.001 seconds.` and the other Swift Testing lines, with any symbol (including
    /// SF Symbols in the private use area) and an optional leading U+200B.
    func readSwiftTestingLine(_ line: String) {
        var scalars = Substring(line).unicodeScalars.drop { $0 == "\u{200B}" || $0 == "\u{FEFF}" }
        guard let symbol = scalars.first, !symbol.isASCII else { return }
        scalars = scalars.drop { !$0.isASCII || $0 == " " }
        let rest = Substring(scalars)
        if rest.hasPrefix("Test run ") {
            readSwiftTestingRunLine(rest)
            return
        }
        guard rest.hasPrefix("Test "), !rest.hasPrefix("Test case ") else { return }
        let afterTest = rest.dropFirst("Test ".count)
        guard let (identifier, remainder) = Self.splitSwiftTestingName(afterTest) else { return }
        var verb = remainder.drop { $0 == " " }
        if verb.hasPrefix("with "), let range = verb.range(of: " test case") {
            // Parameterized: `Test foo(x:) with 3 test cases passed after …`.
            verb = verb[range.upperBound...].drop { $0 != " " }.drop { $0 == " " }
        }
        if verb.hasPrefix("started") {
            startTest(identifier, byXCTest: false)
        } else if let ending = Self.endings.first(where: { verb.hasPrefix($0.verb + " after ") }) {
            let seconds = Double(verb.dropFirst(ending.verb.count + " after ".count).prefix { $0 != " " })
            finishTest(
                TestCaseResult(identifier: identifier, status: ending.status, durationSeconds: seconds),
                origin: .swiftTesting)
        } else if verb.hasPrefix("skipped") {
            var reason: String?
            if let open = verb.firstIndex(of: "\""), let close = verb.lastIndex(of: "\""), open < close {
                reason = String(verb[verb.index(after: open)..<close])
            }
            finishTest(
                TestCaseResult(identifier: identifier, status: .skipped, failureMessage: reason), origin: .swiftTesting)
        } else if verb.hasPrefix("recorded an issue") {
            let (location, message) = Self.issueLocation(in: verb)
            recordIssue(identifier: identifier, location: location, message: message, failure: .swiftTesting)
        }
    }

    /// `Test run started.`, and `Test run with 351 tests failed after 3.787 seconds with 6 issues.` at its end.
    private func readSwiftTestingRunLine(_ line: Substring) {
        if line.hasPrefix("Test run started") {
            facts.swiftTestingRunStarted = true
        } else if line.hasPrefix("Test run with "), line.contains(" passed after ") || line.contains(" failed after ") {
            facts.swiftTestingRunEnd = String(line)
            let words = line.split(separator: " ")
            if words.count > 3, let executed = Int(words[3]) {
                facts.swiftTestingTotals.append(.init(executed: executed, failures: 0, line: String(line)))
            }
        }
    }

    /// `DateTests/CalendarDayTests.swift:63: Fatal error: This test is not implemented yet.`: a Swift runtime trap.
    /// In the XCTest test that was running it is that test's crash, a failure of the app's code, even when the run
    /// died with it and no line says the test ended.
    func readFatalErrorLine(_ line: String) {
        guard let test = facts.runningTest, facts.runningTestIsXCTest, let marker = line.range(of: "Fatal error: ")
        else { return }
        facts.crashLines.append(line)
        // `2023-10-31 15:59:00.828993+0100 xctest[92156:12399312] File.swift:1513: Fatal error: …` repeats it.
        let before = line[..<marker.lowerBound].split(separator: " ").last.map { $0.dropLast(1) } ?? ""
        recordIssue(
            identifier: test, location: before.isEmpty ? nil : Self.shortLocation(before),
            message: "crashed: Fatal error: " + line[marker.upperBound...], failure: .xctest)
    }

    /// `/path/File.swift:71: error: -[M.C t] : message` (an XCTest assertion) or
    /// `/path/File.swift:12:5: error: message` (the compiler).
    func readErrorLine(_ line: String) {
        guard let marker = line.range(of: ": error: ") else { return }
        let location = line[..<marker.lowerBound]
        let message = line[marker.upperBound...]
        if message.hasPrefix("-[") || message.hasPrefix("+["), let close = message.range(of: "] : ") {
            let identifier = TestIdentifier.normalize(String(message[..<close.lowerBound]) + "]")
            recordIssue(
                identifier: identifier, location: Self.shortLocation(location),
                message: String(message[close.upperBound...]), failure: .xctest)
            return
        }
        // `path:line:column`: a path, then two numbers.
        let parts = location.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, !parts[0].isEmpty,
            parts.suffix(2).allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return }
        facts.compilerErrors.append(line)
        emit(.compilerError(location: String(location), message: String(message)))
    }

    /// `<path>:<line>: -[M.C t] : Test skipped - <reason>`: the reason for the `skipped` line that follows.
    func readSkipLine(_ line: String) {
        guard let open = line.range(of: ": -["),
            let close = line.range(of: "] : Test skipped", range: open.upperBound..<line.endIndex)
        else { return }
        let identifier = TestIdentifier.normalize("-[" + line[open.upperBound..<close.lowerBound] + "]")
        var reason = line[close.upperBound...]
        if reason.hasPrefix(" - ") { reason = reason.dropFirst(3) }
        recordIssue(
            identifier: identifier, location: Self.shortLocation(line[..<open.lowerBound]), message: String(reason))
    }

    /// `example2()` or `"Display name"`, then the rest of the line.
    private static func splitSwiftTestingName(_ text: Substring) -> (String, Substring)? {
        if text.hasPrefix("\"") {
            let afterQuote = text.dropFirst()
            guard let close = afterQuote.firstIndex(of: "\"") else { return nil }
            return (String(afterQuote[..<close]), afterQuote[afterQuote.index(after: close)...])
        }
        if let open = text.firstIndex(of: "("), let close = text[open...].firstIndex(of: ")"),
            !text[..<open].contains(" ")
        {
            return (String(text[...close]), text[text.index(after: close)...])
        }
        guard let space = text.firstIndex(of: " ") else { return nil }
        return (String(text[..<space]), text[space...])
    }

    /// `recorded an issue [with N arguments …] at File.swift:18:9: message`.
    private static func issueLocation(in text: Substring) -> (String?, String) {
        var searchStart = text.startIndex
        while let at = text.range(of: " at ", range: searchStart..<text.endIndex) {
            let candidate = text[at.upperBound...]
            if let colon = candidate.range(of: ": ") {
                let location = candidate[..<colon.lowerBound]
                let parts = location.split(separator: ":")
                if parts.count >= 3, parts.suffix(2).allSatisfy({ $0.allSatisfy(\.isNumber) }), !location.contains(" ")
                {
                    return (String(location), String(candidate[colon.upperBound...]))
                }
            }
            searchStart = at.upperBound
        }
        let message = text.drop { $0 != ":" }.dropFirst().drop { $0 == " " }
        return (nil, String(message))
    }

    /// `/Users/john/…/File.swift:71` → `File.swift:71`.
    private static func shortLocation(_ location: Substring) -> String {
        guard let slash = location.lastIndex(of: "/") else { return String(location) }
        return String(location[location.index(after: slash)...])
    }

    /// `… (0.460 seconds).` → 0.46.
    private static func seconds(inParenthesesAtEndOf text: Substring) -> Double? {
        guard let open = text.lastIndex(of: "("), let end = text[open...].range(of: " seconds)") else { return nil }
        return Double(text[text.index(after: open)..<end.lowerBound])
    }
}

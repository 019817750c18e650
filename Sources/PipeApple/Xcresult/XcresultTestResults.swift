import Foundation
import PipeCore

/// The output of `xcrun xcresulttool get test-results tests --path X.xcresult`: the tree of test plans, bundles,
/// suites, test cases, repetitions and failure messages.
public struct XcresultTestResults: Equatable, Sendable, Decodable {
    public var devices: [XcresultSummary.Device]
    public var testNodes: [Node]

    /// One node of the tree; its kind is `nodeType`.
    public struct Node: Equatable, Sendable, Decodable {
        /// `Test Plan`, `Unit test bundle`, `UI test bundle`, `Test Suite`, `Test Case`, `Arguments`, `Repetition`,
        /// `Failure Message`, …
        public var nodeType: String
        public var name: String
        public var nodeIdentifier: String?
        public var nodeIdentifierURL: String?
        /// Absent on `Failure Message` nodes since Xcode 26.
        public var result: XcresultTestResult?
        /// Human-readable and localized (`"0,11s"` on a European-locale Mac); prefer `durationInSeconds`.
        public var duration: String?
        /// Xcode 16.3+.
        public var durationInSeconds: Double?
        public var details: String?
        public var tags: [String]?
        public var children: [Node]?
    }

    private enum CodingKeys: String, CodingKey {
        case devices, testNodes
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        devices = try container.decodeIfPresent([XcresultSummary.Device].self, forKey: .devices) ?? []
        testNodes = try container.decode([Node].self, forKey: .testNodes)
    }

    /// Decodes the command's standard output.
    ///
    /// - Throws: `XcresultError` for empty output, text that is not JSON, or JSON without `testNodes`.
    public static func decode(_ output: Data) throws -> XcresultTestResults {
        try XcresultJSON.decode(XcresultTestResults.self, from: output, command: "get test-results tests")
    }

    /// Every `Test Case` node as a result, in tree order: identifier `Suite/test()` (the node's name when it has
    /// no identifier), duration from `durationInSeconds` or else the localized `duration`, and for failures and
    /// skips the first `Failure Message` below it. Cases whose result is `unknown` (or missing) are left out.
    public var testCases: [TestCaseResult] {
        var results: [TestCaseResult] = []
        func visit(_ node: Node, target: String?) {
            if node.nodeType == "Test Case" {
                if var result = Self.testCaseResult(node) {
                    result.target = target
                    results.append(result)
                }
                return
            }
            // A test bundle's node is named after its target (`ReaderTests`).
            let bundleTarget = node.nodeType.hasSuffix("test bundle") ? node.name : target
            for child in node.children ?? [] { visit(child, target: bundleTarget) }
        }
        for node in testNodes { visit(node, target: nil) }
        return results
    }

    /// Reads `"2s"`, `"0,11s"`, `"0.5s"`, `"1m 5s"`, `"1h 2m"`, `"12ms"`; `nil` when any part is not understood.
    public static func seconds(fromDuration text: String) -> Double? {
        let tokens = text.split(whereSeparator: \.isWhitespace)
        guard !tokens.isEmpty else { return nil }
        var total = 0.0
        for token in tokens {
            let number = token.prefix { $0.isNumber || $0 == "," || $0 == "." }
            let unit = token.dropFirst(number.count)
            guard !number.isEmpty, let value = Double(number.replacingOccurrences(of: ",", with: ".")) else {
                return nil
            }
            switch unit {
            case "ms": total += value / 1000
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            case "d": total += value * 86400
            default: return nil
            }
        }
        return total
    }

    private static func testCaseResult(_ node: Node) -> TestCaseResult? {
        let status: TestCaseResult.Status
        switch node.result {
        case .passed: status = .passed
        case .failed: status = .failed
        case .skipped: status = .skipped
        case .expectedFailure: status = .expectedFailure
        case .unknown, .other, nil: return nil
        }
        let duration = node.durationInSeconds ?? node.duration.flatMap(seconds(fromDuration:))
        var result = TestCaseResult(
            identifier: node.nodeIdentifier ?? node.name, status: status, durationSeconds: duration)
        if status == .failed || status == .skipped, let message = firstFailureMessage(in: node) {
            (result.failureLocation, result.failureMessage) = splitLocation(message)
        }
        return result
    }

    private static func firstFailureMessage(in node: Node) -> String? {
        for child in node.children ?? [] {
            if child.nodeType == "Failure Message" { return child.name }
            if let found = firstFailureMessage(in: child) { return found }
        }
        return nil
    }

    /// `File.swift:307: Caught error: …` → (`File.swift:307`, `Caught error: …`).
    private static func splitLocation(_ message: String) -> (String?, String) {
        guard let separator = message.range(of: ": ") else { return (nil, message) }
        let location = message[..<separator.lowerBound]
        guard let colon = location.lastIndex(of: ":"), !location.contains(" "),
            location[location.index(after: colon)...].allSatisfy(\.isNumber),
            location.index(after: colon) < location.endIndex
        else { return (nil, message) }
        return (String(location), String(message[separator.upperBound...]))
    }
}

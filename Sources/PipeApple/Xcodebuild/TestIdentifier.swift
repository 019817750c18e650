import Foundation

/// One spelling for a test's identity, whichever line named it: `Suite/test()`, as `xcresulttool` writes
/// `testIdentifierString`, so log lines, `Failing tests:` and the bundle's summary name a test the same way.
///
/// | printed as | normalized |
/// |---|---|
/// | `-[ReaderTests.ReadingIDTests testEmpty]` (XCTest, serial) | `ReadingIDTests/testEmpty()` |
/// | `-[StopAfterFailureTests testStops]` (Objective-C, no module) | `StopAfterFailureTests/testStops` |
/// | `ReadingIDTests.testEmpty()` (parallel, `Failing tests:`) | `ReadingIDTests/testEmpty()` |
/// | `ReadingIDTests.testEmpty` (`swift test` on Linux) | `ReadingIDTests/testEmpty()` |
/// | `TestingProjectTests/example2()` (Swift Testing via xcodebuild) | unchanged |
/// | `Outer.Inner.check()` (nested Swift Testing suites in `Failing tests:`) | `Outer/Inner/check()` |
/// | `optional()` (a global Swift Testing function) | unchanged |
public enum TestIdentifier {
    /// The `Suite/test()` form of a test name as any xcodebuild, XCTest or Swift Testing line prints it.
    public static func normalize(_ printed: String) -> String {
        let text = printed.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("-[") || text.hasPrefix("+["), text.hasSuffix("]") {
            let inner = text.dropFirst(2).dropLast()
            guard let space = inner.firstIndex(of: " ") else { return String(inner) }
            let classPart = inner[..<space]
            let method = inner[inner.index(after: space)...]
            // A module prefix (`Module.Class`) means Swift, whose identifiers carry `()`.
            if let dot = classPart.lastIndex(of: ".") {
                return "\(classPart[classPart.index(after: dot)...])/\(method)()"
            }
            return "\(classPart)/\(method)"
        }
        if text.contains("/") { return text }
        let head = text.prefix { $0 != "(" }
        let tail = text[head.endIndex...]
        guard head.contains(".") else { return text }
        let slashed = head.replacingOccurrences(of: ".", with: "/")
        return tail.isEmpty ? slashed + "()" : slashed + tail
    }

    /// The module of XCTest's `-[Module.Class test]` (the test target, `-only-testing`'s first part); `nil` for a
    /// name without one (Objective-C, or xcodebuild's own `Class.test()` line).
    public static func module(ofPrinted printed: String) -> String? {
        let text = printed.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("-[") || text.hasPrefix("+["), let space = text.firstIndex(of: " ") else { return nil }
        let classPart = text[text.index(text.startIndex, offsetBy: 2)..<space]
        guard let dot = classPart.lastIndex(of: "."), dot > classPart.startIndex else { return nil }
        return String(classPart[..<dot])
    }
}

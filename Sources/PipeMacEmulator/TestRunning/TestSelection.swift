/// A test's identity as Xcode names it: test target (module), suite (class) and test method.
struct TestIdentity: Hashable, Codable {
    var target: String
    var suite: String
    var name: String

    /// `-[ReaderTests.ReadingIDTests testTrims]`, as XCTest prints it on Apple platforms.
    var objectiveCName: String { "-[\(target).\(suite) \(name)]" }
    /// `ReadingIDTests.testTrims()`, as the "Failing tests:" block lists it.
    var failingTestsName: String { "\(suite).\(name)()" }
    /// `ReadingIDTests/testTrims()`, as xcresulttool identifies it.
    var identifierString: String { "\(suite)/\(name)()" }
}

/// Which tests `-only-testing:` and `-skip-testing:` select. Identifiers are `Target`, `Target/Suite` or
/// `Target/Suite/test` (a trailing `()` is ignored); they match whole components, so `ReaderTests/Reading`
/// selects nothing from `ReadingIDTests`.
struct TestSelection {
    private let only: [[String]]
    private let skip: [[String]]

    init(onlyTesting: [String], skipTesting: [String]) {
        only = onlyTesting.map(Self.components)
        skip = skipTesting.map(Self.components)
    }

    /// Whether either option was given; Xcode then names the top suite "Selected tests" instead of "All tests".
    var isFiltered: Bool { !only.isEmpty || !skip.isEmpty }

    func includes(_ test: TestIdentity) -> Bool {
        let path = [test.target, test.suite, test.name]
        if !only.isEmpty, !only.contains(where: { Self.isPrefix($0, of: path) }) { return false }
        return !skip.contains { Self.isPrefix($0, of: path) }
    }

    private static func components(_ identifier: String) -> [String] {
        identifier.split(separator: "/", omittingEmptySubsequences: true).enumerated().map { index, part in
            index == 2 && part.hasSuffix("()") ? String(part.dropLast(2)) : String(part)
        }
    }

    private static func isPrefix(_ prefix: [String], of path: [String]) -> Bool {
        !prefix.isEmpty && prefix.count <= path.count && zip(prefix, path).allSatisfy { $0 == $1 }
    }
}

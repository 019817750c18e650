import PipeCore

/// The tests of one action in the legacy JSON (`ActionTestPlanRunSummaries`: what
/// `xcrun xcresulttool get --legacy --format json --path X.xcresult --id <testsRef id>` prints; `apple-formats.md`
/// 5.4): test plan runs → testables (test bundles) → groups (`All tests`, `X.xctest`, the class) → tests
/// (`ActionTestMetadata`).
public struct XcresultLegacyTestPlanRunSummaries: Equatable, Sendable {
    public static let typeName = "ActionTestPlanRunSummaries"

    /// Every test in tree order, named `Suite/test()` (the `identifier` the bundle records).
    public var tests: [TestCaseResult]
    /// `summaryRef` ids of the tests that have one (failed tests do): `get --id` on one gives an
    /// `ActionTestSummary` with the failure's message and location.
    public var summaryReferenceIDs: [String: String]

    /// Reads the object.
    ///
    /// - Throws: `XcresultLegacyError.unsupportedType` for another type.
    public init(_ object: XcresultLegacyObject) throws {
        guard object.typeName == Self.typeName else {
            throw XcresultLegacyError.unsupportedType(object.typeName ?? "(none)", supported: [Self.typeName])
        }
        var tests: [TestCaseResult] = []
        var references: [String: String] = [:]
        func visit(_ node: XcresultLegacyObject, depth: Int, target: String?) {
            // The tree is a handful of levels deep; the bound only guards against a malformed file.
            guard depth < 64 else { return }
            if node.typeNames.contains("ActionTestMetadata") || node.string("testStatus") != nil {
                guard var result = Self.testCase(node) else { return }
                result.target = target
                tests.append(result)
                if let reference = node.referenceID("summaryRef") { references[result.identifier] = reference }
                return
            }
            for child in node.array("subtests") { visit(child, depth: depth + 1, target: target) }
        }
        for summary in object.array("summaries") {
            for testable in summary.array("testableSummaries") {
                let target = testable.string("targetName")
                for node in testable.array("tests") { visit(node, depth: 0, target: target) }
            }
        }
        self.tests = tests
        self.summaryReferenceIDs = references
    }

    /// `Success`, `Failure`, `Skipped`, `Expected Failure` (`apple-formats.md` 5.4); `nil` for any other value.
    static func status(_ text: String?) -> TestCaseResult.Status? {
        switch text {
        case "Success": return .passed
        case "Failure": return .failed
        case "Skipped": return .skipped
        case "Expected Failure": return .expectedFailure
        default: return nil
        }
    }

    private static func testCase(_ node: XcresultLegacyObject) -> TestCaseResult? {
        guard let status = status(node.string("testStatus")) else { return nil }
        guard let name = node.string("identifier") ?? node.string("name") else { return nil }
        return TestCaseResult(
            identifier: TestIdentifier.normalize(name), status: status, durationSeconds: node.double("duration"))
    }
}

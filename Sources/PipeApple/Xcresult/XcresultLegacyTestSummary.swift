import PipeCore

/// One test in detail in the legacy JSON (`ActionTestSummary`: what `get --legacy --format json --id <summaryRef
/// id>` prints for a test): its status and, for a failure, the messages and where they were recorded.
///
/// Only the fields Pipe shows are read: `identifier`, `testStatus`, `duration` and `failureSummaries` (`message`,
/// `fileName`, `lineNumber`, as in xcresulttool's format description 3.53).
public struct XcresultLegacyTestSummary: Equatable, Sendable {
    public static let typeName = "ActionTestSummary"

    public var result: TestCaseResult

    /// Reads the object.
    ///
    /// - Throws: `XcresultLegacyError` for another type, or a test without identifier or known status.
    public init(_ object: XcresultLegacyObject) throws {
        guard object.typeName == Self.typeName else {
            throw XcresultLegacyError.unsupportedType(object.typeName ?? "(none)", supported: [Self.typeName])
        }
        guard let name = object.string("identifier") ?? object.string("name"),
            let status = XcresultLegacyTestPlanRunSummaries.status(object.string("testStatus"))
        else {
            throw XcresultLegacyError.notLegacyJSON(
                detail: "an \(Self.typeName) without `identifier` or a known `testStatus`")
        }
        var result = TestCaseResult(
            identifier: TestIdentifier.normalize(name), status: status, durationSeconds: object.double("duration"))
        if let failure = object.array("failureSummaries").first, let message = failure.string("message") {
            result.failureMessage = message
            if let file = failure.string("fileName") {
                let shortFile = file.split(separator: "/").last.map(String.init) ?? file
                result.failureLocation = failure.int("lineNumber").map { "\(shortFile):\($0)" } ?? shortFile
            }
        }
        self.result = result
    }
}

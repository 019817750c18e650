/// One file of legacy `xcresulttool` JSON, told apart by its `_type._name`: the root record, the tests of an
/// action (`--id <testsRef id>`), or one test in detail (`--id <summaryRef id>`).
public enum XcresultLegacyDocument: Equatable, Sendable {
    case invocationRecord(XcresultLegacyInvocationRecord)
    case testPlanRunSummaries(XcresultLegacyTestPlanRunSummaries)
    case testSummary(XcresultLegacyTestSummary)

    /// The types `read(_:)` understands.
    public static let supportedTypes = [
        XcresultLegacyInvocationRecord.typeName, XcresultLegacyTestPlanRunSummaries.typeName,
        XcresultLegacyTestSummary.typeName,
    ]

    /// Reads a top-level JSON value (as `JSONSerialization` returns it).
    ///
    /// - Throws: `XcresultLegacyError` when the value is not a legacy object or of a type Pipe does not read.
    public static func read(_ json: Any) throws -> XcresultLegacyDocument {
        guard let fields = json as? [String: Any] else {
            throw XcresultLegacyError.notLegacyJSON(detail: "the top level is not an object")
        }
        let object = XcresultLegacyObject(fields)
        guard let name = object.typeName else {
            if fields["testNodes"] != nil || fields["totalTestCount"] != nil {
                throw XcresultLegacyError.notLegacyJSON(
                    detail: "it has no `_type`; it looks like `get test-results …` output (use --tests-json or "
                        + "--summary-json)")
            }
            throw XcresultLegacyError.notLegacyJSON(detail: "the top-level object has no `_type._name`")
        }
        switch name {
        case XcresultLegacyInvocationRecord.typeName: return .invocationRecord(try .init(object))
        case XcresultLegacyTestPlanRunSummaries.typeName: return .testPlanRunSummaries(try .init(object))
        case XcresultLegacyTestSummary.typeName: return .testSummary(try .init(object))
        default: throw XcresultLegacyError.unsupportedType(name, supported: supportedTypes)
        }
    }

    /// The `_type._name` of the document.
    public var typeName: String {
        switch self {
        case .invocationRecord: return XcresultLegacyInvocationRecord.typeName
        case .testPlanRunSummaries: return XcresultLegacyTestPlanRunSummaries.typeName
        case .testSummary: return XcresultLegacyTestSummary.typeName
        }
    }
}

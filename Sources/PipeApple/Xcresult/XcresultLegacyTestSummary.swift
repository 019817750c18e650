import PipeCore

/// One test in detail in the legacy JSON (`ActionTestSummary`: what `get --legacy --format json --id <summaryRef
/// id>` prints for a test): its status and, for a failure, the messages and where they were recorded.
///
/// Only the fields Pipe shows are read: `identifier`, `testStatus`, `duration`, `failureSummaries` (`message`,
/// `fileName`, `lineNumber`, as in xcresulttool's format description 3.53) and the attachments of its activities.
public struct XcresultLegacyTestSummary: Equatable, Sendable {
    public static let typeName = "ActionTestSummary"

    public var result: TestCaseResult
    /// The files the test attached (`activitySummaries[…].attachments`, subactivities included), in the order
    /// recorded.
    public var attachments: [Attachment]

    /// One `ActionTestAttachment`: the host names it, so `filename` is only ever shown, and the payload is fetched
    /// by `payloadID` (`xcresulttool export --type file --id …`).
    public struct Attachment: Equatable, Sendable {
        /// `ViewControllerWithTwoDetails_1_6797ED56-….png`.
        public var filename: String?
        /// The name the test gave it.
        public var name: String?
        public var payloadID: String
        /// `public.png`, `public.jpeg`, …
        public var uniformTypeIdentifier: String?
        public var payloadSize: Int?

        public init(
            filename: String?, name: String?, payloadID: String, uniformTypeIdentifier: String?, payloadSize: Int?
        ) {
            self.filename = filename
            self.name = name
            self.payloadID = payloadID
            self.uniformTypeIdentifier = uniformTypeIdentifier
            self.payloadSize = payloadSize
        }
    }

    /// At most this many attachments are read from one test.
    public static let maximumAttachments = 100

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
        var attachments: [Attachment] = []
        func visit(_ activities: [XcresultLegacyObject], depth: Int) {
            // Activities nest a few levels; the bound only guards against a malformed file.
            guard depth < 16 else { return }
            for activity in activities where attachments.count < Self.maximumAttachments {
                for attachment in activity.array("attachments") where attachments.count < Self.maximumAttachments {
                    guard let id = attachment.referenceID("payloadRef") else { continue }
                    attachments.append(
                        Attachment(
                            filename: attachment.string("filename"), name: attachment.string("name"), payloadID: id,
                            uniformTypeIdentifier: attachment.string("uniformTypeIdentifier"),
                            payloadSize: attachment.int("payloadSize")))
                }
                visit(activity.array("subactivities"), depth: depth + 1)
            }
        }
        visit(object.array("activitySummaries"), depth: 0)
        self.attachments = attachments
    }
}

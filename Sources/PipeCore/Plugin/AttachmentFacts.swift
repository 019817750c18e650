/// What is known of one test attachment brought back from the host. The name and the claimed type come from the
/// host and are only ever shown escaped; `detectedType` comes from the file's own bytes and alone decides whether
/// it may be shown inline.
public struct AttachmentFacts: Sendable, Equatable, Codable {
    /// The test it belongs to, `Suite/test()` as the run's tests name it.
    public var testIdentifier: String
    /// The attachment's name as the host gives it (`suggestedHumanReadableName`).
    public var name: String
    /// The type its file name claims (`image/png` for `*.png`).
    public var claimedType: String
    /// `image/png` or `image/jpeg` when the bytes are one, else `nil`.
    public var detectedType: String?
    /// Whether the test attached it with a failure (a screenshot taken when an assertion failed).
    public var associatedWithFailure: Bool

    public init(
        testIdentifier: String, name: String, claimedType: String, detectedType: String?, associatedWithFailure: Bool
    ) {
        self.testIdentifier = testIdentifier
        self.name = name
        self.claimedType = claimedType
        self.detectedType = detectedType
        self.associatedWithFailure = associatedWithFailure
    }
}

extension AttachmentFacts {
    /// The attachments of `testIdentifier` that `layer`'s attempts brought back, earliest attempt first.
    public static func artifacts(of testIdentifier: String, in layer: RunRecord.LayerRecord) -> [ArtifactRecord] {
        layer.attempts.flatMap(\.artifacts).filter {
            $0.kind == .attachment && $0.attachment?.testIdentifier == testIdentifier
        }
    }
}

import Foundation

/// A sign-off given from the chat.
public struct ChatSignoffRequest: Sendable, Equatable {
    /// The run id, already resolved.
    public var runID: String
    public var layer: String
    public var verdict: SignoffVerdict
    /// The fields the checklist asks for (`os_version=17.5`), in the order typed.
    public var fields: [KeyValuePair]
    public var note: String?
    /// The chat identity that signs: `alice (U012ABCDEF)`.
    public var signedBy: String
    public var at: Date

    public init(
        runID: String, layer: String, verdict: SignoffVerdict, fields: [KeyValuePair], note: String?,
        signedBy: String, at: Date
    ) {
        self.runID = runID
        self.layer = layer
        self.verdict = verdict
        self.fields = fields
        self.note = note
        self.signedBy = signedBy
        self.at = at
    }
}

/// A recorded sign-off.
public struct ChatSignoffReceipt: Sendable, Equatable {
    /// The store's sign-off number.
    public var signoffID: Int64
    public var runID: String
    public var layer: String
    public var verdict: SignoffVerdict
    public var signedBy: String
    /// The release gate's verdict after this sign-off, in one line, when the backend can judge it.
    public var releaseGate: String?

    public init(
        signoffID: Int64, runID: String, layer: String, verdict: SignoffVerdict, signedBy: String,
        releaseGate: String?
    ) {
        self.signoffID = signoffID
        self.runID = runID
        self.layer = layer
        self.verdict = verdict
        self.signedBy = signedBy
        self.releaseGate = releaseGate
    }
}

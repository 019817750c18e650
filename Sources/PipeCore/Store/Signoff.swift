import Foundation
import PipeBasics

/// A recorded sign-off.
public struct Signoff: Sendable, Equatable, Codable {
    /// Increases with every sign-off in the store: a later sign-off supersedes an earlier one of its layer.
    public var id: Int64
    public var runID: String
    public var layer: String
    public var decision: SignoffDecision
    public var signedBy: String
    public var note: String?
    public var at: Date
    /// The pipeline's fields as given (`os_version`, `device`, `app_build`…); nil in sign-offs from before they were
    /// stored.
    public var fields: [String: String]?
    /// The SHA-256 of the release build the sign-off was checked against, when the layer `needs:` one.
    public var buildSHA256: String?

    public init(
        id: Int64, runID: String, layer: String, decision: SignoffDecision, signedBy: String, note: String?, at: Date,
        fields: [String: String]? = nil, buildSHA256: String? = nil
    ) {
        self.id = id
        self.runID = runID
        self.layer = layer
        self.decision = decision
        self.signedBy = signedBy
        self.note = note
        self.at = at
        self.fields = fields
        self.buildSHA256 = buildSHA256
    }
}

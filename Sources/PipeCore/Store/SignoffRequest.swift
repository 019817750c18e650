import Foundation
import PipeBasics

/// A sign-off to append.
public struct SignoffRequest: Sendable, Equatable {
    public var runID: String
    public var layer: String
    public var decision: SignoffDecision
    /// Who signed (login name, chat user).
    public var signedBy: String
    public var note: String?
    public var at: Date
    /// The pipeline's fields as given, kept with the sign-off.
    public var fields: [String: String]
    /// The release build checked, when the layer `needs:` one (`SignoffBuildCheck`).
    public var buildSHA256: String?

    public init(
        runID: String, layer: String, decision: SignoffDecision, signedBy: String, note: String? = nil,
        at: Date = Date(), fields: [String: String] = [:], buildSHA256: String? = nil
    ) {
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

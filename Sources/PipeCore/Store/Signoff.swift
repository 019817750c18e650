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

    public init(
        id: Int64, runID: String, layer: String, decision: SignoffDecision, signedBy: String, note: String?, at: Date
    ) {
        self.id = id
        self.runID = runID
        self.layer = layer
        self.decision = decision
        self.signedBy = signedBy
        self.note = note
        self.at = at
    }
}

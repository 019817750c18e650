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

    public init(
        runID: String, layer: String, decision: SignoffDecision, signedBy: String, note: String? = nil,
        at: Date = Date()
    ) {
        self.runID = runID
        self.layer = layer
        self.decision = decision
        self.signedBy = signedBy
        self.note = note
        self.at = at
    }
}

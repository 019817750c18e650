import Foundation
import PipeBasics

/// A decision on a manual layer.
public enum SignoffDecision: String, Codable, CaseIterable, Sendable {
    case signedOff = "signed-off"
    case rejected

    /// The layer outcome the decision gives.
    public var outcome: LayerOutcome { self == .signedOff ? .signedOff : .rejected }
}

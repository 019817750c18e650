import PipeCore

/// What a tester reports for a manual layer: `pipe signoff … --result pass|fail`.
public enum SignoffResult: String, Sendable, Equatable, CaseIterable {
    case pass
    case fail

    /// The decision recorded in the run store.
    public var decision: SignoffDecision { self == .pass ? .signedOff : .rejected }
}

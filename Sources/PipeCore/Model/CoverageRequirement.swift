/// A layer's `coverage:`: measure code coverage (which costs build and test time, so it is off unless asked for)
/// and, with a minimum, make a shortfall fail the layer.
public struct CoverageRequirement: Sendable, Equatable {
    /// The least line coverage, in percent (0–100), each target must reach; `nil` only measures.
    public var minimumPercent: Double?
    /// The targets held to the minimum, by module name (`Reader` for `Reader.app`); empty for every target that is
    /// not a test bundle.
    public var targets: [String]

    public init(minimumPercent: Double? = nil, targets: [String] = []) {
        self.minimumPercent = minimumPercent
        self.targets = targets
    }
}

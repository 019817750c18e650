/// A sign-off that cannot be recorded: every reason at once. `pipe signoff` prints them, records nothing and
/// exits 2.
public struct SignoffRefusal: Error, CustomStringConvertible, Sendable, Equatable {
    public var layer: String
    public var problems: [String]

    public init(layer: String, problems: [String]) {
        self.layer = layer
        self.problems = problems
    }

    public var description: String {
        "sign-off of \(layer) refused, nothing recorded:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}

/// Every problem found in a pipeline or hosts file, thrown at once so a user fixes them all in one go.
///
/// The problems are sorted by position; `description` is one line per problem (plus the source line and caret of
/// a YAML syntax error), ready for the terminal.
public struct SpecErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [SpecProblem]

    public init(_ problems: [SpecProblem]) {
        self.problems = SpecErrors.sorted(problems)
    }

    /// A single problem.
    public init(_ problem: SpecProblem) {
        self.init([problem])
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }

    /// Sorts by position, keeping the order of problems found at the same place.
    static func sorted(_ problems: [SpecProblem]) -> [SpecProblem] {
        problems.enumerated().sorted { lhs, rhs in
            if SpecProblem.inReadingOrder(lhs.element, rhs.element) { return true }
            if SpecProblem.inReadingOrder(rhs.element, lhs.element) { return false }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}

/// A position in a source file: 1-based line and column, columns counted in Unicode scalars (as libyaml does).
public struct SourceMark: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The first character of a file.
    public static let start = SourceMark(line: 1, column: 1)

    public static func < (lhs: SourceMark, rhs: SourceMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    /// `12:5`.
    public var description: String { "\(line):\(column)" }
}

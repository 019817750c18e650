/// One field of a `.record` setting (`parallel: { workers: 4 }`).
public struct SettingField: Sendable, Equatable {
    /// How a field is written, and the canonical text it is decoded to.
    public enum Kind: String, Sendable {
        /// Decoded as decimal digits.
        case integer
        /// Decoded as `true` or `false`.
        case boolean
        /// Written `60s`, `5m`, …; decoded as seconds in decimal (`60`, `1.5`).
        case duration
    }

    public var key: String
    public var kind: Kind
    public var summary: String

    public init(_ key: String, _ kind: Kind, _ summary: String) {
        self.key = key
        self.kind = kind
        self.summary = summary
    }
}

/// A plugin's own rule for one setting's decoded value: the loader reports each problem at the entry it names,
/// with file:line:column, and the plugin applies the same rule again to the values it runs with.
public struct SettingCheck: Sendable, Equatable {
    /// Names the rule; two checks are equal when their names are.
    public var name: String
    public var problems: @Sendable (SettingValue) -> [SettingProblem]

    public init(_ name: String, _ problems: @escaping @Sendable (SettingValue) -> [SettingProblem]) {
        self.name = name
        self.problems = problems
    }

    public static func == (lhs: SettingCheck, rhs: SettingCheck) -> Bool { lhs.name == rhs.name }
}

/// What a `SettingCheck` refuses in a value, and where in it.
public struct SettingProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Place: Sendable, Equatable {
        /// The value as a whole.
        case value
        /// The entry at this index (0-based) of a list.
        case entry(Int)
        /// The value under this key of a mapping.
        case key(String)
    }

    public var place: Place
    /// What is wrong and what to write instead.
    public var message: String

    public init(_ place: Place, _ message: String) {
        self.place = place
        self.message = message
    }

    public var description: String {
        switch place {
        case .value: return message
        case .entry(let index): return "entry \(index + 1): \(message)"
        case .key(let key): return "\(key): \(message)"
        }
    }
}

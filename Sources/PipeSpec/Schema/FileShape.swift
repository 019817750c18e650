/// The shape of a value in a file a person writes. Loaders take their allowed keys from it
/// (`MappingShape.keyNames`), and `pipe schema` turns it into a JSON Schema (`JSONSchemaWriter`), so the two
/// never disagree.
public indirect enum ValueShape: Sendable, Equatable {
    /// Any scalar but a plain boolean or null (a plain number is read as its text).
    case text
    /// Text that must not be empty.
    case nonEmptyText
    /// A whole number, optionally within a range.
    case integer(ClosedRange<Int>? = nil)
    case boolean
    /// `90s`, `10m`, `1h30m`, `14d`, or a number of seconds (`DurationParser`).
    case duration
    /// `512KB`, `64MB`, `2GiB`, or a number of bytes (`ByteSizeParser`).
    case byteSize
    /// One of a fixed set of words.
    case choice([String])
    case list(ValueShape)
    /// A mapping of the keys of `MappingShape`, and no others.
    case mapping(MappingShape)
    /// A mapping whose keys the user names (layers, hosts, schedules), each value of the same shape.
    case named(ValueShape, keyPattern: String? = nil)
    /// A mapping whose `key` (a layer's `plugin`) picks the keys it takes besides `common`'s: `variants[value]`.
    case tagged(key: String, common: MappingShape, variants: [String: MappingShape])
    /// Any one of the shapes (`host: mac-1` or `host: { name: mac-1 }`).
    case either([ValueShape])
    /// An empty value (`key:` or `~`), where it means something (`default:` is the empty text).
    case empty
    /// Read by code the schema does not describe.
    case anything

    /// A list of text values; a single value may be written without brackets.
    public static let texts = ValueShape.oneOrMore(.text)

    /// A list of `item`s, or a single one without brackets.
    public static func oneOrMore(_ item: ValueShape) -> ValueShape { .either([item, .list(item)]) }
    /// A mapping of text to text.
    public static let textMap = ValueShape.named(.text)
}

/// One key of a mapping: the shape of its value, whether it must be there, and what it is for.
public struct KeyShape: Sendable, Equatable {
    public var key: String
    public var value: ValueShape
    public var required: Bool
    public var summary: String

    public init(_ key: String, _ value: ValueShape, required: Bool = false, _ summary: String) {
        self.key = key
        self.value = value
        self.required = required
        self.summary = summary
    }
}

/// The keys a mapping accepts, in the order the docs list them.
public struct MappingShape: Sendable, Equatable {
    public var keys: [KeyShape]
    /// Says what the mapping is, for the schema's `description`.
    public var summary: String
    /// Whether keys of other owners may be there too (a file's top level read by several loaders).
    public var allowsOtherKeys: Bool

    public init(_ summary: String = "", _ keys: [KeyShape], allowsOtherKeys: Bool = false) {
        self.summary = summary
        self.keys = keys
        self.allowsOtherKeys = allowsOtherKeys
    }

    /// The names `rejectUnknownKeys(allowed:)` takes.
    public var keyNames: [String] { keys.map(\.key) }

    /// The same mapping with more keys (a plugin's settings on a layer).
    public func adding(_ more: [KeyShape]) -> MappingShape {
        MappingShape(
            summary, keys + more.filter { key in !keys.contains { $0.key == key.key } },
            allowsOtherKeys: allowsOtherKeys)
    }
}

/// A file's whole shape, with what the generated schema is called.
public struct FileShape: Sendable, Equatable {
    public var kind: String
    public var title: String
    public var root: MappingShape
    /// Whether `${name}` may stand for a value of any type (pipelines interpolate; other files do not).
    public var interpolates: Bool

    public init(kind: String, title: String, root: MappingShape, interpolates: Bool = false) {
        self.kind = kind
        self.title = title
        self.root = root
        self.interpolates = interpolates
    }
}

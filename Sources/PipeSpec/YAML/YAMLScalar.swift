/// A scalar as written in the file: its text after YAML unescaping, and how it was written.
///
/// The style is kept because it decides the type: `"16.2"` is text, a plain `16.2` is a number whose source text is
/// still available unchanged (so `16.20` never turns into `16.2`), a plain `yes` is a boolean.
public struct YAMLScalar: Sendable, Equatable {
    public enum Style: String, Sendable {
        case plain
        case singleQuoted = "single-quoted"
        case doubleQuoted = "double-quoted"
        case literal
        case folded
    }

    /// What a scalar means under YAML 1.1's plain-scalar rules (the ones libyaml and most YAML users know).
    public enum Resolved: Sendable, Equatable {
        case null
        case boolean(Bool)
        case integer(Int)
        case number(Double)
        case string
    }

    public var text: String
    public var style: Style
    /// The explicit tag, if any (`tag:yaml.org,2002:str` for `!!str`, `!` for the non-specific tag).
    public var tag: String?

    public init(_ text: String, style: Style = .plain, tag: String? = nil) {
        self.text = text
        self.style = style
        self.tag = tag
    }

    /// Whether the scalar was written so that it can only be text: quoted, a block scalar, or tagged `!!str`/`!`.
    public var isText: Bool {
        if let tag { return tag == Self.stringTag || tag == "!" }
        return style != .plain
    }

    /// The scalar's meaning: text for quoted, block and `!!str` scalars, else resolved from the plain text.
    public var resolved: Resolved {
        if isText { return .string }
        if let tag {
            switch tag {
            case Self.nullTag: return .null
            case Self.boolTag: return Self.resolveBoolean(text).map(Resolved.boolean) ?? .string
            case Self.intTag: return Self.resolveInteger(text).map(Resolved.integer) ?? .string
            case Self.floatTag: return Self.resolveNumber(text).map(Resolved.number) ?? .string
            default: return .string
            }
        }
        return Self.resolvePlain(text)
    }

    static let stringTag = "tag:yaml.org,2002:str"
    static let nullTag = "tag:yaml.org,2002:null"
    static let boolTag = "tag:yaml.org,2002:bool"
    static let intTag = "tag:yaml.org,2002:int"
    static let floatTag = "tag:yaml.org,2002:float"
    /// The tags a scalar may carry; any other (`!custom`, `!!binary`, …) is refused by the decoders.
    static let supportedTags: Set<String> = ["!", stringTag, nullTag, boolTag, intTag, floatTag]

    /// Resolves a plain scalar's text.
    public static func resolvePlain(_ text: String) -> Resolved {
        if text.isEmpty || ["~", "null", "Null", "NULL"].contains(text) { return .null }
        if let value = resolveBoolean(text) { return .boolean(value) }
        if let value = resolveInteger(text) { return .integer(value) }
        if let value = resolveNumber(text) { return .number(value) }
        return .string
    }

    /// YAML 1.1 booleans in their three spellings (`yes`, `Yes`, `YES`; `y`/`n` are left as text, as Yams does).
    public static func resolveBoolean(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return true
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return false
        default: return nil
        }
    }

    /// Decimal integers with an optional sign, `0x` hexadecimal and `0o` octal; `_` separators are allowed.
    public static func resolveInteger(_ text: String) -> Int? {
        var body = Substring(text)
        var negative = false
        if let first = body.first, first == "-" || first == "+" {
            negative = first == "-"
            body = body.dropFirst()
        }
        var radix = 10
        if body.hasPrefix("0x") {
            radix = 16
            body = body.dropFirst(2)
        } else if body.hasPrefix("0o") {
            radix = 8
            body = body.dropFirst(2)
        }
        guard let first = body.first, first != "_" else { return nil }
        let digits = body.filter { $0 != "_" }
        guard digits.allSatisfy({ $0.isASCII && $0.isHexDigit }), let magnitude = Int(digits, radix: radix) else {
            return nil
        }
        return negative ? -magnitude : magnitude
    }

    /// Decimal numbers with a fraction or exponent, and `.inf`/`.nan`.
    public static func resolveNumber(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        let allowed = Set("0123456789+-.eE_")
        guard text.contains(where: \.isNumber), text.allSatisfy({ allowed.contains($0) }),
            !text.hasPrefix("_")
        else { return nil }
        return Double(text.filter { $0 != "_" })
    }
}

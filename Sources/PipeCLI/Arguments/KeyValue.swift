/// One `key=value` pair, as given to a `.keyValue` option (`--param scheme=Reader`) or typed in a chat command.
public struct KeyValue: Equatable, Hashable, Sendable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// Splits at the first `=`, so values may contain `=` themselves (`filter=a=b`); `nil` without `=` or key.
    public init?(splitting text: String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        self.init(key: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
    }
}

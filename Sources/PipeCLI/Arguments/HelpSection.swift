/// An extra titled section at the end of a command's help, such as the `EXIT CODES` of `pipe --help`.
public struct HelpSection: Equatable, Sendable {
    /// What a section shows.
    public enum Content: Equatable, Sendable {
        /// Paragraphs separated by blank lines, rewrapped to the help width; lines that start with a space are
        /// kept as they are (for examples).
        case text(String)
        /// Label and description pairs aligned like options: `("2", "invalid usage or pipeline file")`.
        case rows([Row])
    }

    /// One aligned line of a `.rows` section.
    public struct Row: Equatable, Sendable {
        public var label: String
        public var text: String

        public init(_ label: String, _ text: String) {
            self.label = label
            self.text = text
        }
    }

    /// The heading, conventionally upper case.
    public var title: String
    public var content: Content

    public init(title: String, text: String) {
        self.title = title
        self.content = .text(text)
    }

    public init(title: String, rows: [Row]) {
        self.title = title
        self.content = .rows(rows)
    }
}

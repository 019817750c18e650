import Foundation

/// Quoting tool output in messages: its first line, trimmed and shortened.
enum ToolOutput {
    static func firstLine(_ output: Data) -> String {
        firstLine(String(decoding: output.prefix(400), as: UTF8.self))
    }

    static func firstLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.count > 120 ? String(trimmed.prefix(120)) + "…" : trimmed
    }
}

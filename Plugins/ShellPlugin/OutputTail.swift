import Foundation

/// The last lines of a command's output, kept as it streams by (bytes are split on newlines before decoding, so
/// a character cut across two chunks stays whole).
struct OutputTail {
    private let limit: Int
    private var complete: [String] = []
    private var pending: [UInt8] = []

    init(keeping limit: Int) { self.limit = limit }

    mutating func append(_ chunk: Data) {
        pending.append(contentsOf: chunk)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            keep(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        // A line longer than any sensible log line is cut, so a command that never prints a newline cannot grow
        // this without bound.
        if pending.count > 64 * 1024 {
            keep(String(decoding: pending, as: UTF8.self) + "…")
            pending.removeAll()
        }
    }

    /// Blank lines say nothing as evidence: they are not kept, so they cannot push out the lines that do.
    private mutating func keep(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        complete.append(line)
        if complete.count > limit { complete.removeFirst(complete.count - limit) }
    }

    /// The last lines, the unfinished one included; blank lines dropped.
    var lines: [String] {
        var lines = complete
        if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
        return Array(lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.suffix(limit))
    }
}

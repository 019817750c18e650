import Foundation

/// Feeds a log that arrives in chunks (a pipe, a file read piece by piece) to `XcodebuildLogParser`, and keeps what
/// a reader of a log made elsewhere must also report: how far it read, the last lines (the evidence when a run
/// ends without a verdict), and where reading stopped if the input turned out not to be text.
///
/// Memory stays flat whatever the log's size: the parser's own bounds, plus the last `tailBytes` bytes.
public final class XcodebuildLogScanner {
    /// Where reading stopped early, and why.
    public struct Stop: Equatable, Sendable {
        /// 0-based offset of the first byte not read.
        public var byteOffset: Int64
        /// 1-based line of that byte.
        public var line: Int
        public var reason: String
    }

    public let parser = XcodebuildLogParser()
    /// Bytes read (up to `stop`, when there is one).
    public private(set) var bytesRead: Int64 = 0
    /// Set when a NUL byte showed the input is binary (a compressed log, a result bundle's file): nothing after it
    /// is read.
    public private(set) var stop: Stop?

    private let tailBytes: Int
    private var tail: [UInt8] = []
    private var tailStartsAtLineStart = true

    /// - Parameter tailBytes: how much of the end of the log to keep for `lastLines`.
    public init(tailBytes: Int = 8192) {
        self.tailBytes = tailBytes
        tail.reserveCapacity(tailBytes * 2)
    }

    /// Reads a chunk and returns the events of the lines it completed; after a stop, reads nothing more.
    public func feed(_ chunk: Data) -> [XcodebuildLogEvent] {
        guard stop == nil, !chunk.isEmpty else { return [] }
        let nulIndex: Int? = chunk.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, let hit = memchr(base, 0, raw.count) else { return nil }
            return UnsafeRawPointer(hit) - base
        }
        guard let nulIndex else {
            keepTail(chunk)
            bytesRead += Int64(chunk.count)
            return parser.feed(chunk)
        }
        // The lines before the NUL are read; the line holding it is not (it is not text), so the parser is not
        // asked to finish it.
        let text = chunk.prefix(nulIndex)
        let events = parser.feed(text)
        let lastLineEnd = text.lastIndex { $0 == 0x0A || $0 == 0x0D }.map { $0 + 1 - text.startIndex } ?? 0
        keepTail(text.prefix(lastLineEnd), cutPartialLine: lastLineEnd == 0)
        bytesRead += Int64(nulIndex)
        stop = Stop(
            byteOffset: bytesRead, line: parser.facts.lineCount + 1,
            reason: "a NUL byte: this is binary data, not an xcodebuild log")
        return events
    }

    /// Reads the last line when the log did not end with a newline; call once at the end.
    public func finish() -> [XcodebuildLogEvent] {
        stop == nil ? parser.finish() : []
    }

    /// The facts read so far.
    public var facts: XcodebuildLogFacts { parser.facts }

    /// The last non-blank lines read (at most `count`, each cut at 240 characters), oldest first.
    public func lastLines(_ count: Int) -> [String] {
        var lines = String(decoding: tail, as: UTF8.self)
            .split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        // The first piece may be the end of a line whose start was dropped.
        if !tailStartsAtLineStart, !lines.isEmpty { lines.removeFirst() }
        let kept = lines.map { ControlSequences.strip(String($0)).trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }.suffix(count)
        return kept.map { $0.count > 240 ? String($0.prefix(240)) + "…" : $0 }
    }

    /// - Parameter cutPartialLine: the line in progress at the end of the tail is not text: drop it.
    private func keepTail(_ bytes: Data, cutPartialLine: Bool = false) {
        if cutPartialLine {
            let end = tail.lastIndex { $0 == 0x0A || $0 == 0x0D }.map { $0 + 1 } ?? 0
            tail.removeSubrange(end...)
            return
        }
        if bytes.count >= tailBytes {
            let start = bytes.index(bytes.endIndex, offsetBy: -tailBytes)
            tailStartsAtLineStart = start == bytes.startIndex || bytes[bytes.index(before: start)] == 0x0A
            tail = Array(bytes[start...])
            return
        }
        tail.append(contentsOf: bytes)
        if tail.count > tailBytes * 2 {
            let drop = tail.count - tailBytes
            tailStartsAtLineStart = tail[drop - 1] == 0x0A
            tail.removeFirst(drop)
        }
    }
}

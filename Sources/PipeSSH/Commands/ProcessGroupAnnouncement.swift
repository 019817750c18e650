/// Takes the line `<marker> <pgid>` that `RemoteScript.groupLeader` prints out of a command's stderr.
///
/// The line comes before anything the command itself writes, but the login shell may print something first, and
/// chunks split anywhere: bytes that could still be the start of the line are held back until that is decided.
struct ProcessGroupAnnouncement {
    private enum State {
        case searching
        case announced(Int32)
        /// A marker line that did not parse: everything passes through from then on.
        case malformed
    }

    private let marker: [UInt8]
    private var state = State.searching
    private var pending = [UInt8]()

    init(marker: String) {
        self.marker = Array((marker + " ").utf8)
    }

    /// The announced process group id, once its line was seen.
    var processGroup: Int32? {
        if case .announced(let group) = state { return group }
        return nil
    }

    /// Whether the announcement was seen (or a malformed one): stdout may flow from then on.
    var isDecided: Bool {
        if case .searching = state { return false }
        return true
    }

    /// Feeds stderr bytes; returns the bytes to pass on, without the announcement line.
    mutating func filter(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
        guard case .searching = state else { return Array(chunk) }
        pending += chunk
        guard let start = Self.firstIndex(of: marker, in: pending) else {
            let keep = min(pending.count, marker.count - 1)  // a tail that could be the marker's beginning
            let passed = Array(pending[..<(pending.count - keep)])
            pending.removeFirst(pending.count - keep)
            return passed
        }
        let digitsStart = start + marker.count
        guard let newline = pending[digitsStart...].firstIndex(of: UInt8(ascii: "\n")) else {
            let passed = Array(pending[..<start])
            pending.removeFirst(start)
            return passed
        }
        defer { pending = [] }
        guard let group = Int32(String(decoding: pending[digitsStart..<newline], as: UTF8.self)), group > 1 else {
            state = .malformed
            return pending
        }
        state = .announced(group)
        return Array(pending[..<start]) + Array(pending[(newline + 1)...])
    }

    /// The bytes held back when the stream ended before the announcement was complete.
    mutating func flush() -> [UInt8] {
        defer { pending = [] }
        return pending
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
        }
        return nil
    }
}

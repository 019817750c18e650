import Foundation

/// Cuts a byte stream into lines at LF, CR or CRLF, across chunk boundaries.
///
/// Lines are handed out as bytes and decoded only by the caller, so a UTF-8 character split between two chunks is
/// never decoded in halves. A line longer than `maxLineBytes` is cut there (the rest of it is dropped), which keeps
/// memory flat even when a tool prints megabytes without a newline.
struct LineAssembler {
    let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var lastWasCR = false

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
        buffer.reserveCapacity(min(maxLineBytes, 4096))
    }

    /// Calls `onLine` for every line completed by `chunk` (without its terminator).
    mutating func append(_ chunk: Data, onLine: (UnsafeBufferPointer<UInt8>) -> Void) {
        chunk.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            var index = 0
            // A CR that ended the previous chunk already ended its line: skip the LF of that CRLF.
            if lastWasCR, bytes.count > 0, bytes[0] == 0x0A {
                start = 1
                index = 1
            }
            lastWasCR = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A || byte == 0x0D {
                    emit(UnsafeBufferPointer(rebasing: bytes[start..<index]), onLine: onLine)
                    if byte == 0x0D {
                        if index + 1 < bytes.count {
                            if bytes[index + 1] == 0x0A { index += 1 }
                        } else {
                            lastWasCR = true
                        }
                    }
                    start = index + 1
                }
                index += 1
            }
            if start < bytes.count { keep(UnsafeBufferPointer(rebasing: bytes[start..<bytes.count])) }
        }
    }

    /// Hands out the last line when the stream ended without a terminator.
    mutating func finish(onLine: (UnsafeBufferPointer<UInt8>) -> Void) {
        lastWasCR = false
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBufferPointer { onLine($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func emit(_ tail: UnsafeBufferPointer<UInt8>, onLine: (UnsafeBufferPointer<UInt8>) -> Void) {
        if buffer.isEmpty {
            onLine(UnsafeBufferPointer(rebasing: tail.prefix(maxLineBytes)))
            return
        }
        keep(tail)
        buffer.withUnsafeBufferPointer { onLine($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func keep(_ bytes: UnsafeBufferPointer<UInt8>) {
        let room = maxLineBytes - buffer.count
        guard room > 0 else { return }
        buffer.append(contentsOf: bytes.prefix(room))
    }
}

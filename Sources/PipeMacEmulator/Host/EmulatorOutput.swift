import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where an emulated tool writes: a file descriptor (the real binary) or memory (tests).
///
/// Writes go straight to the descriptor without buffering so that a reader on the other end of an SSH channel sees
/// each line when the real tool would print it. Writes are serialized: the interrupt handler writes from another
/// thread.
public final class EmulatorOutput: @unchecked Sendable {
    private let descriptor: Int32?
    private let lock = NSLock()
    private var captured = Data()

    private init(descriptor: Int32?) {
        self.descriptor = descriptor
    }

    /// An output that writes to an open file descriptor (1 for stdout, 2 for stderr).
    public static func fileDescriptor(_ descriptor: Int32) -> EmulatorOutput {
        EmulatorOutput(descriptor: descriptor)
    }

    /// An output that keeps everything in memory; read it back with `text`.
    public static func memory() -> EmulatorOutput {
        EmulatorOutput(descriptor: nil)
    }

    /// Writes `text` as is.
    public func write(_ text: String) {
        let bytes = Data(text.utf8)
        lock.lock()
        defer { lock.unlock() }
        guard let descriptor else {
            captured.append(bytes)
            return
        }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // The reader went away (SIGPIPE is ignored); nothing useful is left to do.
                }
                offset += written
            }
        }
    }

    /// Writes `text` followed by a newline.
    public func line(_ text: String = "") {
        write(text + "\n")
    }

    /// Everything written so far to a memory output (empty for a file descriptor output).
    public var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: captured, as: UTF8.self)
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a remote command's output goes.
protocol CommandOutput: AnyObject {
    /// `false` while the consumer cannot take more stdout; it then waits in the channel window and the host blocks.
    var acceptsStdout: Bool { get }
    func stdout(_ bytes: UnsafeRawBufferPointer) throws
    func stderr(_ bytes: UnsafeRawBufferPointer) throws
    /// Moves buffered output on (into a local process); returns whether anything moved.
    func flush() throws -> Bool
    /// What to wait on while output is buffered (a local process's input), if anything.
    var waitDescriptor: pollfd? { get }
}

/// Output handed to closures as it arrives.
final class CallbackOutput: CommandOutput {
    private let onStdout: (Data) -> Void
    private let onStderr: (Data) -> Void

    init(onStdout: @escaping (Data) -> Void, onStderr: @escaping (Data) -> Void) {
        self.onStdout = onStdout
        self.onStderr = onStderr
    }

    var acceptsStdout: Bool { true }
    func stdout(_ bytes: UnsafeRawBufferPointer) { onStdout(Data(bytes)) }
    func stderr(_ bytes: UnsafeRawBufferPointer) { onStderr(Data(bytes)) }
    func flush() -> Bool { false }
    var waitDescriptor: pollfd? { nil }
}

/// Output kept in memory, for short commands, up to a limit per stream: past it nothing more is kept, and
/// `overflow` says which stream passed, for the caller to stop the command.
final class CollectedOutput: CommandOutput {
    private(set) var stdoutData = Data()
    private(set) var stderrData = Data()
    let stdoutLimit: Int
    let stderrLimit: Int
    /// The stream that passed its limit ("stdout" or "stderr"), once one did.
    private(set) var overflow: String?

    /// What a short command Pipe runs for itself may print: `simctl list -j` of a crowded host is about 1 MB, and
    /// an `xcresulttool` answer for thousands of tests a few MB.
    static let defaultStdoutLimit = 64 << 20
    static let defaultStderrLimit = 16 << 20

    init(stdoutLimit: Int = CollectedOutput.defaultStdoutLimit, stderrLimit: Int = CollectedOutput.defaultStderrLimit) {
        self.stdoutLimit = stdoutLimit
        self.stderrLimit = stderrLimit
    }

    var acceptsStdout: Bool { true }

    func stdout(_ bytes: UnsafeRawBufferPointer) {
        append(bytes, to: &stdoutData, limit: stdoutLimit, stream: "stdout")
    }

    func stderr(_ bytes: UnsafeRawBufferPointer) {
        append(bytes, to: &stderrData, limit: stderrLimit, stream: "stderr")
    }

    private func append(_ bytes: UnsafeRawBufferPointer, to data: inout Data, limit: Int, stream: String) {
        let room = limit - data.count
        if bytes.count > room {
            data.append(contentsOf: bytes.prefix(max(room, 0)))
            if overflow == nil { overflow = stream }
        } else {
            data.append(contentsOf: bytes)
        }
    }

    func flush() -> Bool { false }
    var waitDescriptor: pollfd? { nil }
}

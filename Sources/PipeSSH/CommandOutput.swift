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

/// Output kept in memory, for short commands.
final class CollectedOutput: CommandOutput {
    private(set) var stdoutData = Data()
    private(set) var stderrData = Data()

    var acceptsStdout: Bool { true }
    func stdout(_ bytes: UnsafeRawBufferPointer) { stdoutData.append(contentsOf: bytes) }
    func stderr(_ bytes: UnsafeRawBufferPointer) { stderrData.append(contentsOf: bytes) }
    func flush() -> Bool { false }
    var waitDescriptor: pollfd? { nil }
}

import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A local `tar -c` (Foundation `Process`) whose archive comes out of one end of a socket pair that Pipe drives
/// without blocking, next to the SSH socket in the same `poll()` (an upload; what comes back is never extracted by a
/// tar: `PulledArchiveExtractor`).
///
/// A socket pair rather than a pipe: our end never blocks the loop, and closing it early ends tar with an error of
/// its own, not a signal to the coordinator.
final class LocalTar {
    enum ReadResult {
        case bytes(Int)
        case wouldBlock
        case endOfStream
    }

    /// Our end: archive bytes come out of it.
    let descriptor: Int32
    private let process: Process
    private let errorFile: URL
    private var descriptorOpen = true
    private let launch = Launch()

    /// `process.run()` runs on another thread: starting a process takes 2–5 ms on these machines, and meanwhile the
    /// caller opens the SSH channel that feeds or drains tar (bytes written before tar runs wait in the socket).
    /// Everything that touches the process waits for the launch first.
    private final class Launch: @unchecked Sendable {
        let done = DispatchGroup()
        /// Why tar could not be started; written before `done` is left, read only after waiting on it.
        var failure: String?
    }

    private init(arguments: [String], executable: URL?) throws {
        var ends: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw LocalTarFailure(message: "cannot create a socket pair for tar: \(String(cString: strerror(errno)))")
        }
        descriptor = ends[0]
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let childEnd = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-tar-\(UUID().uuidString).err")
        process = Process()
        guard let tar = executable else {
            _ = close(descriptor)
            try? childEnd.close()
            throw LocalTarFailure(message: "cannot start tar: there is no executable `tar` on PATH; install GNU tar")
        }
        process.executableURL = tar
        process.arguments = arguments
        process.environment = ChildEnvironment.withoutStoreCredentials(ProcessInfo.processInfo.environment)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = childEnd
        let errorHandle: FileHandle
        do {
            _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
            errorHandle = try FileHandle(forWritingTo: errorFile)
            process.standardError = errorHandle
        } catch {
            _ = close(descriptor)
            try? FileManager.default.removeItem(at: errorFile)
            throw LocalTarFailure(message: "cannot start tar: \(error.localizedDescription)")
        }
        let (launch, process) = (launch, process)
        launch.done.enter()
        DispatchQueue.global(qos: .userInitiated).async {
            do {
                try process.run()
            } catch {
                launch.failure = "cannot start tar: \(error.localizedDescription)"
            }
            try? childEnd.close()  // the child holds its copy; ours would keep the stream from ending
            // The child has its own copy too. Foundation's `Process` keeps its standard handles for as long as it
            // lives, which on Linux is past the end of this object: left to it, each transfer leaked one descriptor.
            try? errorHandle.close()
            launch.done.leave()
        }
    }

    /// Waits until `process.run()` has returned; throws when tar could not be started.
    private func launched() throws {
        launch.done.wait()
        if let failure = launch.failure { throw LocalTarFailure(message: failure) }
    }

    /// `tar` as found on PATH once, as `env tar` would find it: starting it directly saves `env`'s own start, about
    /// 1 ms on the critical path of every transfer (a process start costs 1–3 ms on these machines).
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").lazy.map { URL(fileURLWithPath: String($0)).appendingPathComponent("tar") }
            .first { access($0.path, X_OK) == 0 }
    }()

    deinit {
        launch.done.wait()
        if process.isRunning { process.terminate() }
        closeDescriptor()
        try? FileManager.default.removeItem(at: errorFile)
    }

    /// `tar -cf - -C directory .`: the folder's contents as one stream (symlinks as links, modes kept).
    static func archiving(_ directory: URL, executable: URL? = LocalTar.executable) throws -> LocalTar {
        try LocalTar(arguments: ["-cf", "-", "-C", directory.path, "."], executable: executable)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ReadResult {
        let count = systemRead(descriptor, buffer.baseAddress, buffer.count)
        if count > 0 { return .bytes(count) }
        if count == 0 {
            // Also the end when tar never started: the launch closed the child's end.
            try launched()
            return .endOfStream
        }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock }
        throw LocalTarFailure(message: "reading from the local tar failed: \(String(cString: strerror(errno)))")
    }

    /// Stops reading tar's output.
    func closeDescriptor() {
        guard descriptorOpen else { return }
        descriptorOpen = false
        _ = close(descriptor)
    }

    /// Waits for tar to exit (killing it after `seconds`); returns its status and what it printed on stderr.
    func finish(waitingAtMost seconds: Double) -> (status: Int32, errors: String) {
        closeDescriptor()
        do { try launched() } catch { return (127, (error as? LocalTarFailure)?.message ?? "\(error)") }
        let deadline = Deadline(secondsFromNow: seconds)
        while process.isRunning && !deadline.hasPassed { usleep(5_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        // tar's stderr is nearly always empty, and Foundation (Swift 6.3 on Linux) keeps 4 KB for good on every
        // `String(contentsOf:)` of an empty file: two transfers a run, thousands of runs in a controller.
        var info = stat()
        let hasErrors = stat(errorFile.path, &info) == 0 && info.st_size > 0
        let errors = hasErrors ? (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" : ""
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, errors.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Kills tar (an abandoned transfer) and waits for it.
    func abandon() {
        closeDescriptor()
        launch.done.wait()
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Deadline(secondsFromNow: 5)
        while process.isRunning && !deadline.hasPassed { usleep(5_000) }
    }
}

/// The local tar could not be started or failed mid-stream.
struct LocalTarFailure: Error {
    var message: String
}

// `read` is shadowed by the method of the same name inside `LocalTar`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

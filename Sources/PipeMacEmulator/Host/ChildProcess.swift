import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, its stdout and stderr merged into one pipe read line by line.
///
/// Foundation's `Process` cannot be used here: on Linux it puts the child in a process group of its own and lets
/// it inherit ignored signals, so the coordinator's "kill the remote process group" would miss `swift` and the
/// child would ignore SIGTERM. This type keeps the child in the emulator's process group and restores default
/// signal handling in it.
final class ChildProcess {
    /// How a child ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)

        var succeeded: Bool { self == .exited(0) }
    }

    let pid: pid_t
    private let readDescriptor: Int32

    private init(pid: pid_t, readDescriptor: Int32) {
        self.pid = pid
        self.readDescriptor = readDescriptor
    }

    /// Starts `executable` (a path, or a name looked up in the environment's `PATH`).
    static func spawn(
        executable: String, arguments: [String], environment: [String: String], workingDirectory: String
    ) throws -> ChildProcess {
        var pipeDescriptors: [Int32] = [-1, -1]
        guard pipe(&pipeDescriptors) == 0 else { throw ChildProcessError.pipe(errno: errno) }
        let (readEnd, writeEnd) = (pipeDescriptors[0], pipeDescriptors[1])
        defer { close(writeEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        let chdirStatus = workingDirectory.withCString { ChildProcess.addChdir(&actions, $0) }
        guard chdirStatus == 0 else { throw ChildProcessError.spawn(executable: executable, errno: chdirStatus) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let resolved = try resolve(executable, environment: environment)
        let argv = ([resolved] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, resolved, &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(readEnd)
            throw ChildProcessError.spawn(executable: resolved, errno: status)
        }
        return ChildProcess(pid: pid, readDescriptor: readEnd)
    }

    /// Calls `body` with every complete line of output (without its newline) until the child closes its end.
    ///
    /// Bytes are split on newlines before decoding, so a UTF-8 character cut across two reads stays whole.
    func forEachLine(_ body: (String) -> Void) {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readDescriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                body(String(decoding: pending[0..<newline], as: UTF8.self))
                pending.removeSubrange(0...newline)
            }
        }
        if !pending.isEmpty { body(String(decoding: pending, as: UTF8.self)) }
        close(readDescriptor)
    }

    /// Waits for the child to end and reports how.
    func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .exited(127) }
        }
        let low = status & 0x7f
        if low == 0 { return .exited((status >> 8) & 0xff) }
        return .signaled(low)
    }

    /// Finds `name` in `PATH` the way a shell does; a name with a slash is used as given.
    static func resolve(_ name: String, environment: [String: String]) throws -> String {
        if name.contains("/") { return name }
        let searchPath = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in searchPath.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw ChildProcessError.notFound(name: name, searchPath: searchPath)
    }

    private typealias AddChdir =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
        ) -> Int32

    /// `posix_spawn_file_actions_addchdir_np` (glibc ≥ 2.29), looked up at run time: Swift's Glibc module does not
    /// export the GNU extension.
    private static let addChdirFunction: AddChdir? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    private static func addChdir(
        _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: UnsafePointer<CChar>
    )
        -> Int32
    {
        guard let addChdirFunction else { return ENOSYS }
        return addChdirFunction(actions, path)
    }
}

/// Why a child process could not be started.
enum ChildProcessError: Error, CustomStringConvertible {
    case pipe(errno: Int32)
    case spawn(executable: String, errno: Int32)
    case notFound(name: String, searchPath: String)

    var description: String {
        switch self {
        case .pipe(let code):
            return "could not create a pipe: \(String(cString: strerror(code)))"
        case .spawn(let executable, let code):
            return "could not start \(executable): \(String(cString: strerror(code)))"
        case .notFound(let name, let searchPath):
            return "could not find '\(name)' in PATH (\(searchPath)); set PIPE_EMULATOR_SWIFT to the swift executable"
        }
    }
}

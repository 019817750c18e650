import Foundation

/// Runs a real process and collects what it printed, for tests of scripts and of the built binaries.
public struct CommandResult {
    public var exitCode: Int32
    public var stdout: String
    public var stderr: String
    /// What `stdout` was decoded from, for tests that compare bytes (invalid UTF-8 included).
    public var stdoutData = Data()

    /// Both streams, for assertion messages.
    public var combined: String { "--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)" }
}

public enum CommandRunner {
    /// Runs `executable` with `arguments` and waits for it; output is read while it runs, so a large output
    /// cannot block it on a full pipe.
    @discardableResult
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: URL? = nil, stdin: Data? = nil, whileRunning: ((Process) -> Void)? = nil
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        // Each stream is read to its end on a thread of its own: `readabilityHandler` crashed libdispatch in
        // other tests here, and could hand back a process's output after the call had already returned.
        try process.run()
        let collected = OutputCollector()
        let readers = DispatchGroup()
        for (pipe, isStdout) in [(out, true), (err, false)] {
            readers.enter()
            let reader = Thread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                if isStdout { collected.append(stdout: data) } else { collected.append(stderr: data) }
                readers.leave()
            }
            reader.start()
        }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        whileRunning?(process)
        process.waitUntilExit()
        readers.wait()
        return CommandResult(
            exitCode: process.terminationStatus, stdout: collected.stdoutText, stderr: collected.stderrText,
            stdoutData: collected.stdoutData)
    }

    /// Runs `line` with `shell -c` (`/bin/sh`, `/usr/bin/zsh`, …) and `stdin`, to see how a shell reads a line Pipe
    /// built.
    @discardableResult
    public static func shell(_ shell: String, _ line: String, arguments: [String] = [], stdin: Data?) throws
        -> CommandResult
    {
        try run(URL(fileURLWithPath: shell), ["-c", line] + arguments, stdin: stdin)
    }

    /// Runs a shell command line with `/bin/sh -c` (test set-up only: never for values from users).
    @discardableResult
    public static func shell(_ line: String, currentDirectory: URL? = nil) throws -> CommandResult {
        try run(URL(fileURLWithPath: "/bin/sh"), ["-c", line], currentDirectory: currentDirectory)
    }
}

/// Thread-safe accumulation of a child's two output streams.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    func append(stdout data: Data) {
        lock.lock()
        out.append(data)
        lock.unlock()
    }

    func append(stderr data: Data) {
        lock.lock()
        err.append(data)
        lock.unlock()
    }

    var stdoutText: String { String(decoding: stdoutData, as: UTF8.self) }

    var stdoutData: Data {
        lock.lock()
        defer { lock.unlock() }
        return out
    }

    var stderrText: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: err, as: UTF8.self)
    }
}

import Foundation

/// A real PostgreSQL server (Debian's, `/usr/lib/postgresql/15/bin`) for the tests of one test process: started by
/// `scripts/pg-test-server` on the first call to `shared()`, listening only on a Unix socket in a temporary folder,
/// and stopped (its folder removed) by that script once the test process ends, however it ends.
///
/// Each test takes a database of its own with `createDatabase()`, so tests never see each other's rows.
public final class PostgresServer: @unchecked Sendable {
    /// The folder holding the server's socket and data.
    public let socketDirectory: String
    private let lock = NSLock()
    private var databases = 0

    private static let startLock = NSLock()
    nonisolated(unsafe) private static var started: Result<PostgresServer, Error>?

    private init(socketDirectory: String) {
        self.socketDirectory = socketDirectory
    }

    /// The server of this test process, started on the first call (about 2 s); a failure to start is remembered
    /// and thrown again.
    public static func shared() throws -> PostgresServer {
        try startLock.withLock {
            if started == nil { started = Result { try start() } }
            return try started!.get()
        }
    }

    private static func start() throws -> PostgresServer {
        let state = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("pipe-pg-\(UUID().uuidString.prefix(8))").path
        try runScript(["up", "--state", state, "--watch-pid", String(ProcessInfo.processInfo.processIdentifier)])
        return PostgresServer(socketDirectory: state)
    }

    /// Stops the server at once, as a crash would, and starts it again (about a second): connections are lost.
    public func restart() throws {
        try Self.runScript(["restart", "--state", socketDirectory])
    }

    /// Stops the server at once, as a crash would, until `start()`: every request fails meanwhile.
    public func stop() throws {
        try Self.runScript(["stop", "--state", socketDirectory])
    }

    /// Starts a server `stop()` stopped, on the same socket and data.
    public func start() throws {
        try Self.runScript(["start", "--state", socketDirectory])
    }

    /// Runs scripts/pg-test-server; throws with what it printed when it fails.
    private static func runScript(_ arguments: [String]) throws {
        // The script's output goes to a file, not a pipe: the server and the watcher it leaves running would hold
        // a pipe's write end open for the life of the test process, so reading a pipe to its end never returns.
        let outputPath = NSTemporaryDirectory() + "pipe-pg-\(UUID().uuidString.prefix(8)).out"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil) else {
            throw PostgresServerError(message: "cannot create \(outputPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = RepositoryPaths.root.appendingPathComponent("scripts/pg-test-server")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try? output.close()
        let printed = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw PostgresServerError(message: "scripts/pg-test-server \(arguments[0]) failed:\n\(printed)")
        }
    }

    /// The URL of `database` on this server, as a user would pass it to `--store`.
    public func url(database: String) -> String {
        "postgresql:///\(database)?host=\(socketDirectory)&user=pipe"
    }

    /// Creates a new, empty database and returns its URL.
    public func createDatabase(prefix: String = "pipe_test") throws -> String {
        let name = lock.withLock {
            databases += 1
            return "\(prefix)_\(databases)_\(UUID().uuidString.prefix(6).lowercased())"
        }
        try psql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs SQL with `psql` as the server's superuser (test set-up only), in database `postgres` unless told.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/psql"),
            [
                "--no-psqlrc", "--quiet", "--tuples-only", "--no-align", "-v", "ON_ERROR_STOP=1",
                url(database: database),
                "-c", sql,
            ])
        guard result.exitCode == 0 else {
            throw PostgresServerError(message: "psql failed on `\(sql)`:\n\(result.combined)")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The test server could not be started or used.
public struct PostgresServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

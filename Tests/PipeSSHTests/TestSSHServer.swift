import Foundation
import PipeCore
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A real OpenSSH sshd on 127.0.0.1 for these tests: its own host key, client key, authorized_keys and known_hosts
/// in a temporary state folder, started once per test process and stopped when the test bundle finishes.
///
/// As root it logs in a dedicated user (`pipe-mac`, created if missing; root login stays refused); as an ordinary
/// user, that user. Small on purpose: the project's shared emulated Mac host (`scripts/mac-host`) replaces it later.
final class TestSSHServer {
    let state: URL
    let port: Int
    let user: String
    let clientKey: URL
    let knownHosts: URL
    let hostPublicKey: String
    let logFile: URL
    private var sshdPID: pid_t = 0

    /// The shared server, or the reason it could not start.
    static let shared: Result<TestSSHServer, Error> = Result {
        let server = try TestSSHServer()
        XCTestObservationCenter.shared.addTestObserver(StopAtEnd(server: server))
        return server
    }

    /// The shared server; fails the calling test with the reason when it could not start.
    static func require(file: StaticString = #filePath, line: UInt = #line) throws -> TestSSHServer {
        switch shared {
        case .success(let server): return server
        case .failure(let error):
            XCTFail("sshd for the PipeSSH tests could not start: \(error)", file: file, line: line)
            throw error
        }
    }

    private init() throws {
        Self.stopAbandonedServers()
        state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pipe-ssh-tests-\(getpid())")
        try? FileManager.default.removeItem(at: state)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        user = try Self.loginUser()
        port = try Self.freePort()
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)

        let hostKey = state.appendingPathComponent("host_ed25519")
        clientKey = state.appendingPathComponent("client_ed25519")
        try Self.run(
            "/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "pipe-test-host", "-f", hostKey.path])
        try Self.run(
            "/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "pipe-test-client", "-f", clientKey.path])
        hostPublicKey = try String(contentsOfFile: hostKey.path + ".pub", encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        knownHosts = state.appendingPathComponent("known_hosts")
        try "[127.0.0.1]:\(port) \(hostPublicKey)\n".write(to: knownHosts, atomically: true, encoding: .utf8)

        let config = state.appendingPathComponent("sshd_config")
        try """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(hostKey.path)
        PidFile \(state.path)/sshd.pid
        AuthorizedKeysFile \(state.path)/authorized_keys_%u
        UsePAM no
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        PermitRootLogin no
        StrictModes no
        LogLevel DEBUG1
        MaxSessions 10

        """.write(to: config, atomically: true, encoding: .utf8)
        try Self.run("/usr/sbin/sshd", ["-t", "-f", config.path])
        logFile = state.appendingPathComponent("sshd.log")
        try authorize(publicKeyFile: clientKey.path + ".pub")
        // Daemonized, not `-D` under Foundation's `Process`: Foundation notices a child's exit by EOF on a socket
        // the child inherits, sshd closes inherited descriptors at start, and Foundation's one monitor thread then
        // blocks in `waitpid` on the live sshd, hanging every later `Process` wait in this test process.
        try Self.run("/usr/sbin/sshd", ["-f", config.path, "-E", logFile.path])
        let pidFile = state.appendingPathComponent("sshd.pid")
        let deadline = Date().addingTimeInterval(10)
        var daemon: pid_t = 0
        while daemon == 0 || !log().contains("Server listening on 127.0.0.1 port \(port)") {
            daemon =
                pid_t(
                    (try? String(contentsOf: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                        ?? "") ?? 0
            guard Date() < deadline else {
                throw ServerFailure("sshd did not start listening on port \(port); its log:\n\(log())")
            }
            usleep(20_000)
        }
        sshdPID = daemon
    }

    /// Adds a public key to the login user's authorized_keys.
    func authorize(publicKeyFile: String) throws {
        let file = state.appendingPathComponent("authorized_keys_\(user)")
        let line = try String(contentsOfFile: publicKeyFile, encoding: .utf8)
        let existing = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        try (existing + line).write(to: file, atomically: true, encoding: .utf8)
        _ = chmod(file.path, 0o644)
    }

    /// A host configuration for this server; `knownHostsFile` defaults to the one that trusts its key.
    func hostConfig(
        identityFile: String? = nil, knownHostsFile: String? = nil, useAgent: Bool = false, timeout: Double = 10
    ) -> HostConfig {
        HostConfig(
            name: "mac-test", address: "127.0.0.1", port: port, user: user,
            identityFile: useAgent ? identityFile : (identityFile ?? clientKey.path), useAgent: useAgent,
            knownHostsFile: knownHostsFile ?? knownHosts.path, connectTimeoutSeconds: timeout)
    }

    /// A fresh file in the state folder.
    func file(_ name: String) -> URL {
        state.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
    }

    /// sshd's log so far.
    func log() -> String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    func stop() {
        Self.stopServer(pid: sshdPID, state: state)
    }

    /// Stops an sshd started by a test process (checked by its command line naming `state`), removes `state`.
    private static func stopServer(pid: pid_t, state: URL) {
        let commandLine = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
        if pid > 1, commandLine.contains(state.path) {
            kill(pid, SIGTERM)
        }
        try? FileManager.default.removeItem(at: state)
    }

    /// Stops servers left by test processes that died without stopping theirs.
    private static func stopAbandonedServers() {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for entry in entries where entry.hasPrefix("pipe-ssh-tests-") {
            guard let owner = pid_t(entry.dropFirst("pipe-ssh-tests-".count)), owner != getpid(),
                kill(owner, 0) != 0 && errno == ESRCH
            else { continue }
            let state = temporary.appendingPathComponent(entry)
            let pidText = (try? String(contentsOf: state.appendingPathComponent("sshd.pid"), encoding: .utf8)) ?? ""
            stopServer(pid: pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, state: state)
        }
    }

    /// Runs a local tool, failing with its output when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        String(decoding: try runData(tool, arguments, environment: environment), as: UTF8.self)
    }

    /// Runs a local tool and returns its standard output.
    static func runData(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let errors = temporaryErrorFile()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        defer { try? FileManager.default.removeItem(at: errors) }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text =
                String(decoding: data, as: UTF8.self) + ((try? String(contentsOf: errors, encoding: .utf8)) ?? "")
            throw ServerFailure(
                "\(tool) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
        }
        return data
    }

    /// Starts a long-running tool with `posix_spawn`, stdio on /dev/null; stop it with `stopSpawned`.
    ///
    /// Not Foundation's `Process`: a daemon that keeps the descriptor Foundation watches for its child's exit
    /// (ssh-agent does) makes `waitUntilExit` wait for the daemon, and one that closes it (sshd) hangs Foundation's
    /// monitor thread.
    static func spawn(_ tool: String, _ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        guard status == 0 else { throw ServerFailure("cannot start \(tool): \(String(cString: strerror(status)))") }
        return pid
    }

    /// Stops and reaps a tool started with `spawn`.
    static func stopSpawned(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    private static func loginUser() throws -> String {
        guard getuid() == 0 else { return ProcessInfo.processInfo.userName }
        let name = "pipe-mac"
        if (try? run("/usr/bin/id", ["-u", name])) == nil {
            // Another test process may create it at the same moment: only a failure that leaves no user counts.
            if (try? run("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", name])) == nil {
                _ = try run("/usr/bin/id", ["-u", name])
            }
        }
        let shadow = (try? String(contentsOfFile: "/etc/shadow", encoding: .utf8)) ?? ""
        let locked = shadow.split(separator: "\n").contains { $0.hasPrefix("\(name):!") }
        // `useradd` makes a locked account, which sshd refuses under `UsePAM no`; `*` unlocks it for keys only.
        if locked { try run("/usr/sbin/usermod", ["-p", "*", name]) }
        return name
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(descriptor, pointer, length) == 0 else { return -1 }
                return getsockname(descriptor, pointer, &length)
            }
        }
        guard bound == 0 else { throw ServerFailure("no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private final class StopAtEnd: NSObject, XCTestObservation {
        let server: TestSSHServer
        init(server: TestSSHServer) { self.server = server }
        func testBundleDidFinish(_ testBundle: Bundle) { server.stop() }
    }
}

private func temporaryErrorFile() -> URL {
    let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
        "pipe-ssh-test-\(UUID().uuidString).err")
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    return file
}

struct ServerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

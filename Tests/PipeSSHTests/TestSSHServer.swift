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
    private let process: Process

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
        state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pipe-ssh-tests-\(getpid())")
        try? FileManager.default.removeItem(at: state)
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        user = try Self.loginUser()
        port = try Self.freePort()
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)

        let hostKey = state.appendingPathComponent("host_ed25519")
        clientKey = state.appendingPathComponent("client_ed25519")
        try Self.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "pipe-test-host", "-f", hostKey.path])
        try Self.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "pipe-test-client", "-f", clientKey.path])
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
        process = Process()
        try authorize(publicKeyFile: clientKey.path + ".pub")

        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/sshd")
        process.arguments = ["-D", "-e", "-f", config.path]
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !log().contains("Server listening on 127.0.0.1 port \(port)") {
            guard process.isRunning, Date() < deadline else {
                process.terminate()
                throw ServerFailure("sshd did not start listening on port \(port); its log:\n\(log())")
            }
            usleep(20_000)
        }
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
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: state)
    }

    /// Runs a local tool, failing with its output when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw ServerFailure("\(tool) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
        }
        return text
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

struct ServerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

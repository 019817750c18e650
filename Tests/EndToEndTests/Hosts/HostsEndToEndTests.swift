import Foundation
import PipeTestSupport
import XCTest

/// What the `pipe hosts …` / `pipe sims …` end-to-end tests share: a pool of three emulated Macs started at once
/// (real sshd instances on their own ports, each with its own host key, login key and emulator config), and a
/// project whose hosts file names all three.
///
/// | host  | config                         | Xcode | available runtimes   | unavailable simulator        |
/// |-------|--------------------------------|-------|----------------------|------------------------------|
/// | mac-1 | emulator/hosts/default.json    | 16.2  | iOS 17.5, iOS 18.2   | iPhone 14 (runtime deleted)  |
/// | mac-2 | emulator/hosts/xcode-15.4.json | 15.4  | iOS 17.2, iOS 17.5   | iPhone 16 (device type)      |
/// | mac-3 | emulator/hosts/xcode-16.3.json | 16.3  | iOS 18.4             | iPhone 16 on iOS 18.2 (gone) |
///
/// As root every emulated host logs in the same user (`pipe-mac`), so each gets its own work folder
/// (`pipe-work-<test id>-<host>`), removed after the test.
class HostsEndToEndTests: XCTestCase {
    struct PoolHost {
        var host: EmulatedMacHost
        var state: TemporaryDirectory
        var config: String
        var capacity: Int
        var labels: [String: String]
    }

    var pool: [PoolHost] = []
    var project: PipeProject!
    /// Distinguishes this test's work folders on the hosts.
    let testID = String(UUID().uuidString.prefix(8)).lowercased()

    static let layout: [(name: String, config: String, capacity: Int, xcode: String)] = [
        ("mac-1", "default.json", 2, "16.2"), ("mac-2", "xcode-15.4.json", 1, "15.4"),
        ("mac-3", "xcode-16.3.json", 3, "16.3"),
    ]

    override func setUpWithError() throws {
        for entry in Self.layout {
            let state = try TemporaryDirectory(prefix: "pipe-pool-\(entry.name)")
            let config = RepositoryPaths.root.appendingPathComponent("emulator/hosts/\(entry.config)")
            let host = try EmulatedMacHost(name: entry.name, config: config, stateDirectory: state.url)
            pool.append(
                PoolHost(
                    host: host, state: state, config: entry.config, capacity: entry.capacity,
                    labels: ["xcode": entry.xcode]))
        }
        project = try PipeProject(host: pool[0].host)
        try writeHostsFile()
    }

    override func tearDown() {
        for member in pool {
            _ = try? member.host.inspect("rm -rf \(workDirectory(member.host.name))")
            member.host.stop()
            member.state.remove()
        }
        pool = []
        project = nil
        super.tearDown()
    }

    func host(_ name: String) -> EmulatedMacHost {
        pool.first { $0.host.name == name }!.host
    }

    /// The work folder of a host for this test, relative to the login's home.
    func workDirectory(_ name: String) -> String { "pipe-work-\(testID)-\(name)" }

    /// Writes the hosts file naming every host of the pool; `knownHosts` and `identities` replace a host's files.
    func writeHostsFile(
        knownHosts: [String: URL] = [:], identities: [String: URL] = [:], labels: [String: [String: String]] = [:]
    ) throws {
        let entries = pool.map { member -> String in
            let name = member.host.name
            let chosenLabels = (labels[name] ?? member.labels).sorted { $0.key < $1.key }
                .map { "\($0.key): \"\($0.value)\"" }.joined(separator: ", ")
            return """
                  - name: \(name)
                    address: 127.0.0.1
                    port: \(member.host.port)
                    user: \(member.host.user)
                    identity-file: \((identities[name] ?? member.host.identityFile).path)
                    known-hosts: \((knownHosts[name] ?? member.host.knownHostsFile).path)
                    labels: { \(chosenLabels) }
                    capacity: \(member.capacity)
                    work-dir: \(workDirectory(name))
                    connect-timeout: 5s

                """
        }
        try project.writeHostsFile(entries.joined())
    }

    /// Stops a host's sshd (the host is "down"); `restart` brings it back on the same port.
    func stop(_ name: String) {
        host(name).stop()
    }

    /// Starts a stopped host again on its port; with `newHostKey` it comes back with a different key, as after a
    /// reinstall (or as a machine in the middle would present).
    func restart(_ name: String, newHostKey: Bool = false) throws {
        let member = pool.first { $0.host.name == name }!
        member.host.stop()
        if newHostKey {
            for file in ["ssh_host_ed25519_key", "ssh_host_ed25519_key.pub"] {
                try FileManager.default.removeItem(at: member.state.url.appendingPathComponent(file))
            }
        }
        let result = try CommandRunner.run(
            RepositoryPaths.macHostScript,
            [
                "up", "--state", member.state.url.path, "--name", name, "--port", "\(member.host.port)",
                "--emulator", RepositoryPaths.emulatorBinary.path,
            ])
        XCTAssertEqual(result.exitCode, 0, result.combined)
    }

    /// `SHA256:…` of the host's key file, as `ssh-keygen -lf` prints it (independent of Pipe's own code).
    func fingerprint(ofHostKeyOf name: String) throws -> String {
        let key = pool.first { $0.host.name == name }!.state.url.appendingPathComponent("ssh_host_ed25519_key.pub")
        let result = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-lf", key.path])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        return String(result.stdout.split(separator: " ")[1])
    }

    /// The host's public key line (`ssh-ed25519 AAAA…`) from its key file.
    func publicKey(of name: String) throws -> String {
        let key = pool.first { $0.host.name == name }!.state.url.appendingPathComponent("ssh_host_ed25519_key.pub")
        let text = try String(contentsOf: key, encoding: .utf8)
        return text.split(separator: " ").prefix(2).joined(separator: " ")
    }

    /// `pipe <arguments>` that must succeed, its stdout parsed as JSON.
    func json(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        let result = try project.pipe(arguments)
        XCTAssertEqual(result.exitCode, 0, result.combined, file: file, line: line)
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    func assertContains(
        _ text: String, _ parts: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        for part in parts where !text.contains(part) {
            XCTFail("'\(part)' missing from:\n\(text)", file: file, line: line)
        }
    }

    /// The line of a table that starts with `first` (its first column).
    func row(_ first: String, in table: String) -> String? {
        table.split(separator: "\n").map(String.init).first { $0.hasPrefix(first + " ") }
    }

    /// Polls `condition` every 50 ms until it holds; fails the test after `timeout` seconds.
    func waitUntil(
        _ what: String, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line,
        _ condition: () throws -> Bool
    ) rethrows {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTFail("timed out after \(timeout) s waiting until \(what)", file: file, line: line)
    }
}

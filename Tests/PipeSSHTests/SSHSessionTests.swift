import Foundation
import PipeCore
import PipeTestSupport
import XCTest

@testable import PipeSSH

#if canImport(Glibc)
    import Glibc
#endif

/// Connecting to a real sshd: host key checks before login, algorithms, authentication and its failures, and whether
/// an idle session may serve another run.
final class SSHSessionTests: XCTestCase {
    private var server: TestSSHServer!

    override func setUpWithError() throws {
        server = try TestSSHServer.require()
    }

    func testConnectVerifiesTheHostKeyAndUsesThePreferredAlgorithms() throws {
        let session = try SSHSession.connect(to: server.hostConfig())
        XCTAssertTrue(session.isConnected)
        XCTAssertEqual(session.hostKeyType, "ssh-ed25519")
        let keygen = try TestSSHServer.run("/usr/bin/ssh-keygen", ["-lf", server.knownHosts.path, "-E", "sha256"])
        XCTAssertEqual(session.hostKeyFingerprint, String(keygen.split(separator: " ")[1]))
        XCTAssertEqual(
            session.methods,
            SSHNegotiatedMethods(
                keyExchange: "curve25519-sha256", hostKey: "ssh-ed25519", cipher: "aes128-ctr", mac: "hmac-sha2-256"))
        let output = try SSHRemoteHost(session: session).capture("id -un")
        XCTAssertEqual(output.stdoutText, "\(server.user)\n")
    }

    func testUnknownHostKeyIsRefusedBeforeAnyLogin() throws {
        let knownHosts = server.file("known_hosts_empty")
        try "# nothing yet\n".write(to: knownHosts, atomically: true, encoding: .utf8)
        let logBefore = server.log().count
        let error = try connectionError(server.hostConfig(knownHostsFile: knownHosts.path))
        XCTAssertEqual(error.kind, .hostKeyUnknown)
        let fingerprint = try SSHSession.fetchHostKey(of: server.hostConfig()).fingerprint
        XCTAssertTrue(
            error.message.contains("The authenticity of host '[127.0.0.1]:\(server.port)' can't be established."))
        XCTAssertTrue(error.message.contains("ED25519 key fingerprint is \(fingerprint)."), error.message)
        XCTAssertTrue(error.message.contains("pipe hosts trust mac-test"), error.message)
        XCTAssertTrue(error.message.contains("ssh-keyscan -p \(server.port) -t ed25519 127.0.0.1"), error.message)
        XCTAssertTrue(error.message.contains(knownHosts.path), error.message)
        try assertNoLoginAttempted(since: logBefore)
    }

    func testChangedHostKeyIsRefusedNamingTheFileAndLine() throws {
        let impostor = try XCTUnwrap(
            String(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .appendingPathComponent("Fixtures/other_ed25519.pub"), encoding: .utf8
            ).split(separator: " ").prefix(2).joined(separator: " "))
        let knownHosts = server.file("known_hosts_changed")
        try "# line 1\n[127.0.0.1]:\(server.port) \(impostor)\n".write(
            to: knownHosts, atomically: true, encoding: .utf8)
        let logBefore = server.log().count
        let error = try connectionError(server.hostConfig(knownHostsFile: knownHosts.path))
        XCTAssertEqual(error.kind, .hostKeyChanged)
        XCTAssertTrue(error.message.contains("REMOTE HOST IDENTIFICATION HAS CHANGED"), error.message)
        XCTAssertTrue(error.message.contains("\(knownHosts.path):2"), error.message)
        XCTAssertTrue(error.message.contains(try SSHSession.fetchHostKey(of: server.hostConfig()).fingerprint))
        XCTAssertTrue(error.message.contains("ssh-keygen -f"), error.message)
        try assertNoLoginAttempted(since: logBefore)
    }

    func testPlainAddressEntryIsNotAcceptedForAnotherPort() throws {
        let knownHosts = server.file("known_hosts_plain")
        try "127.0.0.1 \(server.hostPublicKey)\n".write(to: knownHosts, atomically: true, encoding: .utf8)
        let error = try connectionError(server.hostConfig(knownHostsFile: knownHosts.path))
        XCTAssertEqual(error.kind, .hostKeyUnknown)
        XCTAssertTrue(error.message.contains("\(knownHosts.path):1 records this key for '127.0.0.1'"), error.message)
        XCTAssertTrue(error.message.contains("'[127.0.0.1]:\(server.port)'"), error.message)
    }

    func testHashedKnownHostsEntryIsAccepted() throws {
        let knownHosts = server.file("known_hosts_hashed")
        try FileManager.default.copyItem(at: server.knownHosts, to: knownHosts)
        try TestSSHServer.run("/usr/bin/ssh-keygen", ["-H", "-f", knownHosts.path])
        XCTAssertTrue(try String(contentsOf: knownHosts, encoding: .utf8).hasPrefix("|1|"))
        let session = try SSHSession.connect(to: server.hostConfig(knownHostsFile: knownHosts.path))
        XCTAssertEqual(session.hostKeyType, "ssh-ed25519")
    }

    func testFetchHostKeyGivesTheLineThatTrustsIt() throws {
        let key = try SSHSession.fetchHostKey(of: server.hostConfig(knownHostsFile: "/nonexistent"))
        XCTAssertEqual(
            key.knownHostsLine(address: "127.0.0.1", port: server.port) + "\n",
            try String(contentsOf: server.knownHosts, encoding: .utf8))
    }

    func testKeyTheHostDoesNotKnowSaysWhatWasTried() throws {
        let key = server.file("stranger_ed25519")
        try TestSSHServer.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key.path])
        let error = try connectionError(server.hostConfig(identityFile: key.path))
        XCTAssertEqual(error.kind, .authentication)
        XCTAssertTrue(error.message.contains("Tried: public key \(key.path) (ssh-ed25519): refused by the host"))
        XCTAssertTrue(error.message.contains("The host accepts: publickey"), error.message)
        XCTAssertTrue(error.message.contains("authorized_keys"), error.message)
    }

    func testRSAKeyGetsTheLibssh2Explanation() throws {
        let key = server.file("legacy_rsa")
        try TestSSHServer.run("/usr/bin/ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", key.path])
        try server.authorize(publicKeyFile: key.path + ".pub")  // authorized: only the signature algorithm fails
        let error = try connectionError(server.hostConfig(identityFile: key.path))
        XCTAssertEqual(error.kind, .authentication)
        XCTAssertTrue(error.message.contains("(ssh-rsa)"), error.message)
        XCTAssertTrue(error.message.contains("libssh2 1.10 signs RSA keys only with ssh-rsa (SHA-1)"), error.message)
        XCTAssertTrue(error.message.contains("ssh-keygen -t ed25519"), error.message)
    }

    func testEncryptedKeyWithPassphraseFromTheEnvironment() throws {
        let key = server.file("locked_ed25519")
        let passphrase = "correct horse \(UUID().uuidString)"
        try TestSSHServer.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", passphrase, "-f", key.path])
        try server.authorize(publicKeyFile: key.path + ".pub")
        var host = server.hostConfig(identityFile: key.path)
        host.identityPassphraseEnvironment = "PIPE_TEST_PASSPHRASE"

        let session = try SSHSession.connect(to: host, environment: ["PIPE_TEST_PASSPHRASE": passphrase])
        XCTAssertTrue(session.isConnected)

        let wrong = "wrong \(UUID().uuidString)"
        var error = try connectionError(host, environment: ["PIPE_TEST_PASSPHRASE": wrong])
        XCTAssertEqual(error.kind, .authentication)
        XCTAssertTrue(error.message.contains("wrong or missing passphrase"), error.message)
        XCTAssertFalse(error.message.contains(wrong))

        error = try connectionError(host, environment: [:])
        XCTAssertTrue(error.message.contains("PIPE_TEST_PASSPHRASE"), error.message)

        let passphraseFile = server.file("passphrase")
        try (passphrase + "\n").write(to: passphraseFile, atomically: true, encoding: .utf8)
        host.identityPassphraseEnvironment = nil
        host.identityPassphraseFile = passphraseFile.path
        XCTAssertTrue(try SSHSession.connect(to: host).isConnected)
    }

    func testSSHAgentAuthentication() throws {
        let socket = server.file("agent.sock").path
        let agent = try TestSSHServer.spawn("/usr/bin/ssh-agent", ["-D", "-a", socket])
        defer { TestSSHServer.stopSpawned(agent) }
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(10_000) }

        let environment = ["SSH_AUTH_SOCK": socket]
        var error = try connectionError(server.hostConfig(useAgent: true), environment: environment)
        XCTAssertTrue(error.message.contains("ssh-agent at \(socket): it holds no keys"), error.message)

        try TestSSHServer.run("/usr/bin/ssh-add", ["-q", server.clientKey.path], environment: environment)
        let session = try SSHSession.connect(to: server.hostConfig(useAgent: true), environment: environment)
        XCTAssertTrue(session.isConnected)

        error = try connectionError(server.hostConfig(useAgent: true), environment: [:])
        XCTAssertTrue(error.message.contains("SSH_AUTH_SOCK is not set"), error.message)
    }

    func testSilentServerTimesOutDuringTheHandshake() throws {
        // A listening socket that accepts TCP (the kernel does) but never speaks SSH.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) + listen(listener, 4) + getsockname(listener, $0, &length)
            }
        }
        var host = server.hostConfig(timeout: 1)
        host.port = Int(UInt16(bigEndian: address.sin_port))
        let started = Date()
        let error = try connectionError(host)
        XCTAssertEqual(error.kind, .timeout)
        XCTAssertTrue(error.message.contains("did not finish within 1 s"), error.message)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testNothingListeningIsUnreachable() throws {
        var host = server.hostConfig()
        host.port = 1
        let error = try connectionError(host)
        XCTAssertEqual(error.kind, .unreachable)
        XCTAssertTrue(error.message.contains("Connection refused"), error.message)
    }

    func testDisconnectedSessionRefusesWork() throws {
        let session = try SSHSession.connect(to: server.hostConfig())
        session.disconnect()
        XCTAssertFalse(session.isConnected)
        XCTAssertThrowsError(try SSHRemoteHost(session: session).capture("true")) { error in
            XCTAssertEqual((error as? RemoteError)?.kind, .connectionLost)
        }
    }

    // MARK: - Reuse: whether an idle session may serve another run, decided without a round trip

    func testAnIdleSessionThatRanCommandsMayBeReused() throws {
        let session = try SSHSession.connect(to: server.hostConfig())
        let before = session.channelsOpened
        _ = try SSHRemoteHost(session: session).capture("true")
        XCTAssertGreaterThan(session.channelsOpened, before, "a command opens a channel")
        XCTAssertEqual(session.openChannels, 0, "and frees it")
        XCTAssertNil(session.reuseRefusal(environment: [:]))
    }

    func testASessionTheHostClosedIsRefused() throws {
        let session = try SSHSession.connect(to: server.hostConfig())
        _ = try SSHRemoteHost(session: session).capture("true")
        let dropped = try SSHDaemonConnections(pidFile: server.state.appendingPathComponent("sshd.pid")).drop()
        XCTAssertGreaterThan(dropped, 0)
        var refusal: String?
        let deadline = Date().addingTimeInterval(5)
        while refusal == nil, Date() < deadline {
            refusal = session.reuseRefusal(environment: [:])
            usleep(20_000)
        }
        XCTAssertTrue(refusal?.contains("the host sent something") ?? false, refusal ?? "reusable")
        XCTAssertTrue(session.isConnected, "found without reading: libssh2 has not seen the end yet")
    }

    /// The drop the pooled-session tests rely on: right after login, sshd's session process may not be forked yet
    /// when the drop lists the processes; the connection must end all the same, not half (a channel opened whose
    /// command never starts).
    func testADroppedConnectionEndsEvenRightAfterLogin() throws {
        let connections = SSHDaemonConnections(pidFile: server.state.appendingPathComponent("sshd.pid"))
        for round in 1...20 {
            let session = try SSHSession.connect(to: server.hostConfig())
            try connections.drop()
            XCTAssertThrowsError(try SSHRemoteHost(session: session).capture("true"), "round \(round)") { error in
                XCTAssertEqual((error as? RemoteError)?.kind, .connectionLost)
                XCTAssertTrue("\(error)".contains("opening a channel"), "round \(round): \(error)")
            }
        }
    }

    func testAClosedSessionIsRefused() throws {
        let session = try SSHSession.connect(to: server.hostConfig())
        session.disconnect()
        XCTAssertEqual(session.reuseRefusal(environment: [:]), "the session was closed")
    }

    func testTheHostKeyIsCheckedAgainstTheKnownHostsFileAsItReadsNow() throws {
        let knownHosts = server.file("known_hosts")
        let trusted = try String(contentsOf: server.knownHosts, encoding: .utf8)
        try trusted.write(to: knownHosts, atomically: true, encoding: .utf8)
        let session = try SSHSession.connect(to: server.hostConfig(knownHostsFile: knownHosts.path))
        // A command first, as every run's connection ran: it reads what sshd sends after the login (its host keys).
        _ = try SSHRemoteHost(session: session).capture("true")
        XCTAssertNil(session.reuseRefusal(environment: [:]))

        // Another key recorded for the host: refused at once, although the session is healthy.
        let otherKey = server.file("other_key")
        try TestSSHServer.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", otherKey.path])
        let other = try String(contentsOfFile: otherKey.path + ".pub", encoding: .utf8).split(separator: " ")
        try "[127.0.0.1]:\(server.port) \(other[0]) \(other[1])\n".write(
            to: knownHosts, atomically: true, encoding: .utf8)
        XCTAssertEqual(
            session.reuseRefusal(environment: [:]),
            "\(knownHosts.path) no longer trusts its host key (\(session.hostKeyFingerprint))")

        // The key removed: refused too.
        try "# emptied\n".write(to: knownHosts, atomically: true, encoding: .utf8)
        XCTAssertNotNil(session.reuseRefusal(environment: [:]))
        try FileManager.default.removeItem(at: knownHosts)
        XCTAssertNotNil(session.reuseRefusal(environment: [:]))

        // Trusted again: fit again.
        try trusted.write(to: knownHosts, atomically: true, encoding: .utf8)
        XCTAssertNil(session.reuseRefusal(environment: [:]))
        _ = try SSHRemoteHost(session: session).capture("true")
    }

    // MARK: - Helpers

    private func connectionError(_ host: HostConfig, environment: [String: String] = [:]) throws -> RemoteError {
        do {
            _ = try SSHSession.connect(to: host, environment: environment)
        } catch let error as RemoteError {
            return error
        }
        XCTFail("connecting to \(host.endpoint) succeeded")
        throw ServerFailure("connected")
    }

    /// sshd logged the refusal we sent, and no authentication request, since `offset`.
    private func assertNoLoginAttempted(since offset: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        var recent = ""
        let deadline = Date().addingTimeInterval(5)
        repeat {
            recent = String(server.log().dropFirst(offset))
            if recent.contains("Host key verification failed") { break }
            usleep(20_000)
        } while Date() < deadline
        XCTAssertTrue(
            recent.contains("Host key verification failed"), "sshd did not log our refusal:\n\(recent)",
            file: file, line: line)
        XCTAssertFalse(recent.contains("userauth-request"), "a login was attempted:\n\(recent)", file: file, line: line)
        XCTAssertFalse(recent.contains("Starting session"), "a command ran:\n\(recent)", file: file, line: line)
    }
}

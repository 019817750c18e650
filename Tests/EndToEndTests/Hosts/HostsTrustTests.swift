import Foundation
import PipeTestSupport
import XCTest

/// `pipe hosts trust`: an unknown key trusted only after confirmation, a changed key never.
final class HostsTrustTests: HostsEndToEndTests {
    private var knownHosts: URL { project.url.appendingPathComponent(".pipe/known_hosts") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        // mac-1 and mac-3 are checked against a file that does not exist yet: their keys are unknown.
        try writeHostsFile(knownHosts: ["mac-1": knownHosts, "mac-3": knownHosts])
    }

    private func knownHostsText() -> String { (try? String(contentsOf: knownHosts, encoding: .utf8)) ?? "" }

    func testAnUnknownKeyIsTrustedWithYesAndTheMatchingFingerprintThenConnectionsWork() throws {
        let expected = try fingerprint(ofHostKeyOf: "mac-1")
        let port = host("mac-1").port
        XCTAssertEqual(try project.pipe(["hosts", "check", "mac-1"]).exitCode, 3, "unknown before")

        // No terminal and no --yes: nothing is asked, nothing written, and the way forward is said.
        let unattended = try project.pipe(["hosts", "trust", "mac-1"])
        XCTAssertEqual(unattended.exitCode, 2, unattended.combined)
        assertContains(
            unattended.stdout,
            [
                "The authenticity of host '[127.0.0.1]:\(port)' (mac-1) can't be established.",
                "ED25519 key fingerprint is \(expected).", "appends this line to \(knownHosts.path)",
            ])
        assertContains(unattended.stderr, ["no terminal to ask on", "--yes --fingerprint <that fingerprint>"])

        let noFingerprint = try project.pipe(["hosts", "trust", "mac-1", "--yes"])
        XCTAssertEqual(noFingerprint.exitCode, 2, noFingerprint.combined)
        assertContains(noFingerprint.stderr, ["--yes needs --fingerprint"])

        let malformed = try project.pipe(["hosts", "trust", "mac-1", "--yes", "--fingerprint", "SHA256:short"])
        XCTAssertEqual(malformed.exitCode, 2, malformed.combined)

        let other = try fingerprint(ofHostKeyOf: "mac-2")
        let wrong = try project.pipe(["hosts", "trust", "mac-1", "--yes", "--fingerprint", other])
        XCTAssertEqual(wrong.exitCode, 3, wrong.combined)
        assertContains(wrong.stderr, ["presents \(expected), not \(other)", "nothing was written"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: knownHosts.path), "nothing written")

        let trusted = try project.pipe(["hosts", "trust", "mac-1", "--yes", "--fingerprint", expected])
        XCTAssertEqual(trusted.exitCode, 0, trusted.combined)
        assertContains(
            trusted.stdout,
            ["✓ added [127.0.0.1]:\(port) ssh-ed25519 (\(expected))", "✓ connected to mac-1 and logged in as"])
        XCTAssertEqual(knownHostsText(), "[127.0.0.1]:\(port) \(try publicKey(of: "mac-1"))\n")
        // OpenSSH itself accepts the line Pipe wrote.
        let ssh = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ssh"),
            [
                "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=\(knownHosts.path)", "-o", "StrictHostKeyChecking=yes",
                "-i", host("mac-1").identityFile.path, "-p", "\(port)", "\(host("mac-1").user)@127.0.0.1", "true",
            ])
        XCTAssertEqual(ssh.exitCode, 0, ssh.combined)

        // Pipe's own connections now work, and trusting again changes nothing.
        XCTAssertEqual(try project.pipe(["hosts", "check", "mac-1"]).exitCode, 0)
        let again = try project.pipe(["hosts", "trust", "mac-1"])
        XCTAssertEqual(again.exitCode, 0, again.combined)
        assertContains(again.stdout, ["is already trusted", "Nothing to do."])
        // A second host appended to the same file keeps the first one's line.
        let third = try project.pipe([
            "hosts", "trust", "mac-3", "--yes", "--fingerprint", try fingerprint(ofHostKeyOf: "mac-3"),
        ])
        XCTAssertEqual(third.exitCode, 0, third.combined)
        XCTAssertEqual(knownHostsText().split(separator: "\n").count, 2)
    }

    func testOnATerminalTheKeyIsTrustedOnlyWhenThePersonSaysYes() throws {
        let expected = try fingerprint(ofHostKeyOf: "mac-3")
        // `script` gives `pipe` a terminal and types the answer into it.
        func answer(_ text: String) throws -> CommandResult {
            let line = "\(RepositoryPaths.pipeBinary.path) hosts trust mac-3"
            return try CommandRunner.run(
                URL(fileURLWithPath: "/usr/bin/script"), ["-qec", line, "/dev/null"],
                currentDirectory: project.url, stdin: Data((text + "\n").utf8))
        }
        let declined = try answer("no")
        XCTAssertEqual(declined.exitCode, 3, declined.combined)
        assertContains(
            declined.stdout,
            [
                "ED25519 key fingerprint is \(expected).", "Trust this key for mac-3? (yes/no/[fingerprint])",
                "not trusted: nothing was written",
            ])
        XCTAssertEqual(knownHostsText(), "")

        let accepted = try answer(expected)
        XCTAssertEqual(accepted.exitCode, 0, accepted.combined)
        assertContains(accepted.stdout, ["✓ added", "✓ connected to mac-3"])
        XCTAssertEqual(knownHostsText(), "[127.0.0.1]:\(host("mac-3").port) \(try publicKey(of: "mac-3"))\n")
    }

    func testAChangedKeyIsNeverAcceptedAndTheMessageSaysHowToReplaceIt() throws {
        let old = try fingerprint(ofHostKeyOf: "mac-1")
        XCTAssertEqual(
            try project.pipe(["hosts", "trust", "mac-1", "--yes", "--fingerprint", old]).exitCode, 0)
        let before = knownHostsText()

        try restart("mac-1", newHostKey: true)
        let new = try fingerprint(ofHostKeyOf: "mac-1")
        XCTAssertNotEqual(new, old)
        let check = try project.pipe(["hosts", "check", "mac-1"])
        XCTAssertEqual(check.exitCode, 3, check.combined)
        assertContains(check.stdout, ["mac-1: host-key: @@@", "REMOTE HOST IDENTIFICATION HAS CHANGED", "changed"])

        // Not even with --yes and the new key's own fingerprint.
        let refused = try project.pipe(["hosts", "trust", "mac-1", "--yes", "--fingerprint", new])
        XCTAssertEqual(refused.exitCode, 3, refused.combined)
        let name = "[127.0.0.1]:\(host("mac-1").port)"
        assertContains(
            refused.stderr,
            [
                "presents a key that differs from the one recorded; it is not trusted and nothing was written",
                "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!",
                "The fingerprint for the ED25519 key sent by '\(name)' is \(new);",
                "\(knownHosts.path):1 records a different ED25519 key (\(old))",
                "ssh-keygen -f \(knownHosts.path) -R '\(name)'", "pipe hosts trust mac-1",
            ])
        XCTAssertEqual(knownHostsText(), before)

        // Doing what the message says works: remove the old entry, then trust the new key.
        let removed = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-f", knownHosts.path, "-R", name])
        XCTAssertEqual(removed.exitCode, 0, removed.combined)
        let trusted = try project.pipe(["hosts", "trust", "mac-1", "--yes", "--fingerprint", new])
        XCTAssertEqual(trusted.exitCode, 0, trusted.combined)
        XCTAssertEqual(try project.pipe(["hosts", "check", "mac-1"]).exitCode, 0)
    }

    /// A new key of another type for a host whose key is recorded gets OpenSSH's warning (`show_other_keys` in its
    /// sshconnect.c, word for word): a man in the middle can offer only a key type the client has not recorded.
    func testANewKeyTypeForAKnownHostGetsOpenSSHsWarning() throws {
        let port = host("mac-1").port
        let name = "[127.0.0.1]:\(port)"
        let keyFile = project.url.appendingPathComponent(".pipe/other_ecdsa_key")
        let made = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-q", "-t", "ecdsa", "-N", "", "-f", keyFile.path])
        XCTAssertEqual(made.exitCode, 0, made.combined)
        let ecdsa = try String(contentsOf: keyFile.appendingPathExtension("pub"), encoding: .utf8)
            .split(separator: " ").prefix(2).joined(separator: " ")
        try "\(name) \(ecdsa)\n".write(to: knownHosts, atomically: true, encoding: .utf8)
        let recorded = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-lf", keyFile.appendingPathExtension("pub").path])
        let recordedFingerprint = String(recorded.stdout.split(separator: " ")[1])

        let result = try project.pipe(["hosts", "trust", "mac-1"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        let warning =
            "WARNING: ECDSA key found for host \(name)\nin \(knownHosts.path):1\nECDSA key fingerprint "
            + "\(recordedFingerprint)."
        assertContains(result.stderr, [warning])
        assertContains(
            result.stdout,
            [
                "The authenticity of host '\(name)' (mac-1) can't be established\n"
                    + "but keys of different type are already known for this host.\n"
                    + "ED25519 key fingerprint is \(try fingerprint(ofHostKeyOf: "mac-1"))."
            ])
        XCTAssertEqual(knownHostsText(), "\(name) \(ecdsa)\n", "nothing was written")
    }
}

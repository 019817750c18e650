import Foundation
import XCTest

@testable import PipeSSH

/// known_hosts decisions against a fixture made with OpenSSH's own tools (`ssh-keygen`, `ssh-keygen -H`).
final class KnownHostsFileTests: XCTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")
    private var file: KnownHostsFile!
    private var hostA: SSHHostKey!
    private var hostB: SSHHostKey!
    private var other: SSHHostKey!

    override func setUpWithError() throws {
        let path = fixtures.appendingPathComponent("known_hosts").path
        file = try KnownHostsFile.load(path: path)
        hostA = try key("host_a_ed25519.pub")
        hostB = try key("host_b_ecdsa.pub")
        other = try key("other_ed25519.pub")
    }

    private func key(_ name: String) throws -> SSHHostKey {
        let line = try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
        let fields = line.split(separator: " ")
        return try XCTUnwrap(Data(base64Encoded: String(fields[1])).flatMap(SSHHostKey.init(blob:)))
    }

    func testFingerprintsMatchSSHKeygen() throws {
        let expected = try String(contentsOf: fixtures.appendingPathComponent("fingerprints.txt"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: " ")[1] }
        XCTAssertEqual([hostA.fingerprint, hostB.fingerprint, other.fingerprint], expected.map(String.init))
        XCTAssertEqual(hostA.type, "ssh-ed25519")
        XCTAssertEqual(hostB.type, "ecdsa-sha2-nistp256")
        XCTAssertEqual(hostB.displayType, "ECDSA")
    }

    func testPlainEntryIsForPort22Only() {
        XCTAssertEqual(file.verdict(for: hostA, address: "mac-plain.example", port: 22), .trusted(line: 2))
        XCTAssertEqual(
            file.verdict(for: hostA, address: "mac-plain.example", port: 2222),
            .unknown(otherKeyTypes: [], portMismatchLines: [2]))
    }

    func testBracketedEntryIsForItsPortOnly() {
        XCTAssertEqual(file.verdict(for: hostA, address: "mac-port.example", port: 2222), .trusted(line: 3))
        XCTAssertEqual(
            file.verdict(for: hostA, address: "mac-port.example", port: 22),
            .unknown(otherKeyTypes: [], portMismatchLines: []))
        XCTAssertEqual(
            file.verdict(for: hostA, address: "mac-port.example", port: 2223),
            .unknown(otherKeyTypes: [], portMismatchLines: []))
    }

    func testHostNamesAreCaseInsensitive() {
        XCTAssertEqual(file.verdict(for: hostA, address: "MAC-Plain.Example", port: 22), .trusted(line: 2))
    }

    func testCommaSeparatedNamesAndOtherKeyTypes() {
        XCTAssertEqual(file.verdict(for: hostB, address: "10.0.0.7", port: 22), .trusted(line: 4))
        XCTAssertEqual(
            file.verdict(for: hostA, address: "mac-multi.example", port: 22),
            .unknown(otherKeyTypes: ["ecdsa-sha2-nistp256 (line 4)"], portMismatchLines: []))
        XCTAssertEqual(file.keyTypes(address: "mac-multi.example", port: 22), ["ecdsa-sha2-nistp256"])
    }

    /// OpenSSH's `show_other_keys` paragraph for each recorded key of another type; none for the same type or for
    /// a host without other keys.
    func testTheWarningForKeysOfAnotherTypeNamesEachOne() throws {
        let path = fixtures.appendingPathComponent("known_hosts").path
        XCTAssertEqual(
            OtherKeyTypesWarning.text(for: hostA, address: "mac-multi.example", port: 22, knownHostsPath: path),
            "WARNING: ECDSA key found for host mac-multi.example\nin \(path):4\nECDSA key fingerprint "
                + "\(hostB.fingerprint).")
        XCTAssertNil(OtherKeyTypesWarning.text(for: hostB, address: "10.0.0.7", port: 22, knownHostsPath: path))
        XCTAssertNil(
            OtherKeyTypesWarning.text(for: hostA, address: "mac-plain.example", port: 22, knownHostsPath: path))
        XCTAssertNil(OtherKeyTypesWarning.text(for: hostA, address: "a", port: 22, knownHostsPath: path + ".none"))
    }

    func testWildcardsAndNegation() {
        XCTAssertEqual(file.verdict(for: hostA, address: "build-1.wild.example", port: 22), .trusted(line: 5))
        XCTAssertEqual(
            file.verdict(for: hostA, address: "bad.wild.example", port: 22),
            .unknown(otherKeyTypes: [], portMismatchLines: []))
    }

    func testHashedEntriesMatchTheirNameAndPort() {
        XCTAssertEqual(file.verdict(for: hostA, address: "mac-hashed.example", port: 2200), .trusted(line: 6))
        XCTAssertEqual(file.verdict(for: hostA, address: "mac-hashed22.example", port: 22), .trusted(line: 12))
        XCTAssertEqual(
            file.verdict(for: hostA, address: "mac-hashed.example", port: 22),
            .unknown(otherKeyTypes: [], portMismatchLines: []))
    }

    func testChangedKeyNamesTheLineAndTheRecordedFingerprint() {
        XCTAssertEqual(
            file.verdict(for: hostA, address: "mac-changed.example", port: 22),
            .changed(line: 9, recordedFingerprint: other.fingerprint))
    }

    func testRevokedKeyIsRefusedEvenWhereTrustedByAnotherLine() {
        XCTAssertEqual(file.verdict(for: hostA, address: "mac-revoked.example", port: 22), .revoked(line: 7))
    }

    func testCertificateAuthorityAndBrokenLinesAreIgnored() {
        // `@cert-authority *.example` must not make `other` trusted for any *.example host.
        XCTAssertEqual(
            file.verdict(for: other, address: "anything.example", port: 22),
            .unknown(otherKeyTypes: [], portMismatchLines: []))
        XCTAssertEqual(
            file.verdict(for: hostA, address: "mac-broken.example", port: 22),
            .unknown(otherKeyTypes: [], portMismatchLines: []))
    }

    func testMissingFileKnowsNothing() throws {
        let missing = try KnownHostsFile.load(path: "/nonexistent/known_hosts")
        XCTAssertFalse(missing.exists)
        XCTAssertEqual(
            missing.verdict(for: hostA, address: "mac-plain.example", port: 22),
            .unknown(otherKeyTypes: [], portMismatchLines: []))
    }

    func testKnownHostsLineIsWhatOpenSSHWrites() {
        XCTAssertEqual(
            hostA.knownHostsLine(address: "127.0.0.1", port: 2222),
            "[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFvG/JE/gFM8AeA8pbpnn9MEcttP627rfTipE+cgCLUH")
        XCTAssertTrue(hostA.knownHostsLine(address: "mac.local", port: 22).hasPrefix("mac.local ssh-ed25519 "))
    }

    func testWildcardMatcher() {
        func match(_ text: String, _ pattern: String) -> Bool {
            KnownHostsFile.wildcardMatch(Array(text.utf8), Array(pattern.utf8))
        }
        XCTAssertTrue(match("abc", "a*"))
        XCTAssertTrue(match("abc", "*c"))
        XCTAssertTrue(match("abc", "a?c"))
        XCTAssertTrue(match("[h]:22", "[h]:22"))
        XCTAssertFalse(match("abc", "a?"))
        XCTAssertFalse(match("abcd", "a*c"))
        XCTAssertTrue(match("", "*"))
    }
}

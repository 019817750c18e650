import Foundation
import PipeBasics
import PipeTestSupport
import XCTest

/// RS256 signatures checked by the `openssl` command line, on keys it made.
final class RS256SignerTests: XCTestCase {
    private let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjQyfQ".utf8)

    func testTheSignatureIsOpenSSLsOwnAndVerifiesAgainstThePublicKey() throws {
        let keys = try TestKeys.rsa2048()
        let signature = try RS256Signer(pem: keys.privatePEM).sign(message)
        XCTAssertEqual(signature.count, 256)
        let input = keys.folder.appendingPathComponent("input-\(UUID().uuidString)")
        let signatureFile = keys.folder.appendingPathComponent("signature-\(UUID().uuidString)")
        try Data(message).write(to: input)
        try Data(signature).write(to: signatureFile)
        let verified = try TestKeys.openssl([
            "dgst", "-sha256", "-verify", keys.publicKey.path, "-signature", signatureFile.path, input.path,
        ])
        XCTAssertEqual(verified.stdout, "Verified OK\n")
        // PKCS#1 v1.5 is deterministic: openssl's own signature of the same bytes is the same bytes.
        let theirs = try TestKeys.openssl(["dgst", "-sha256", "-sign", keys.privateKey.path, input.path])
        XCTAssertEqual(Array(theirs.stdoutData), signature)
        // Another message does not verify under this signature.
        try Data(message + [0x2E]).write(to: input)
        XCTAssertThrowsError(
            try TestKeys.openssl([
                "dgst", "-sha256", "-verify", keys.publicKey.path, "-signature", signatureFile.path, input.path,
            ]))
    }

    func testAPKCS1KeyAsGitHubHandsItOutIsRead() throws {
        let keys = try TestKeys.rsa2048()
        let pkcs1 = try TestKeys.openssl(["pkey", "-in", keys.privateKey.path, "-traditional"]).stdout
        XCTAssertTrue(pkcs1.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"), pkcs1)
        XCTAssertEqual(try RS256Signer(pem: pkcs1).sign(message), try RS256Signer(pem: keys.privatePEM).sign(message))
    }

    func testKeysThatCannotSignRS256AreRefusedWithWhy() throws {
        let ec = try TestKeys.made("ec", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        XCTAssertThrowsError(try RS256Signer(pem: ec.privatePEM)) {
            XCTAssertEqual($0 as? RS256Signer.Failure, .notRSA)
        }
        let short = try TestKeys.made("rsa1024", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        XCTAssertThrowsError(try RS256Signer(pem: short.privatePEM)) {
            XCTAssertEqual($0 as? RS256Signer.Failure, .tooShort(bits: 1024))
        }
        // An encrypted key is refused at once: no passphrase is asked for on a terminal.
        let encrypted = try TestKeys.made(
            "rsa-encrypted",
            [
                "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-aes-256-cbc", "-pass",
                "pass:secret",
            ],
            publicHalf: false)
        XCTAssertThrowsError(try RS256Signer(pem: encrypted.privatePEM)) {
            guard case .unreadableKey = $0 as? RS256Signer.Failure else { return XCTFail("\($0)") }
        }
        for text in ["", "not a key", "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"] {
            XCTAssertThrowsError(try RS256Signer(pem: text)) {
                guard case .unreadableKey(let why) = $0 as? RS256Signer.Failure else { return XCTFail("\($0)") }
                XCTAssertFalse(why.isEmpty)
            }
        }
    }
}

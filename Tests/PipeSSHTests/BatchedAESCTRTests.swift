import CBatchedAESCTR
import CCrypto
import Foundation
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// The AES-CTR libssh2 encrypts with (`CBatchedAESCTR`): AES-CTR's bytes, whatever the lengths it is called with,
/// across its 4 KiB batches and counter carries, checked against NIST's vectors and OpenSSL's own `enc`.
final class BatchedAESCTRTests: XCTestCase {
    override func setUpWithError() throws {
        try SSHLibrary.initialize()
        XCTAssertTrue(SSHLibrary.batchedCipherInstalled, "OpenSSL refused the engine")
    }

    /// Encrypts (or decrypts) `input` through `EVP_aes_*_ctr()`, as libssh2 asks for it, in calls of `lengths`
    /// bytes in turn.
    private func crypt(_ input: [UInt8], key: [UInt8], iv: [UInt8], encrypt: Bool = true, lengths: [Int] = [16])
        throws -> [UInt8]
    {
        let cipher: OpaquePointer? =
            switch key.count {
            case 16: EVP_aes_128_ctr()
            case 24: EVP_aes_192_ctr()
            default: EVP_aes_256_ctr()
            }
        let context = try XCTUnwrap(EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(context) }
        XCTAssertEqual(EVP_CipherInit(context, cipher, key, iv, encrypt ? 1 : 0), 1)
        var output = [UInt8](repeating: 0, count: input.count)
        var offset = 0
        var turn = 0
        while offset < input.count {
            let length = min(lengths[turn % lengths.count], input.count - offset)
            turn += 1
            let status = input.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    EVP_Cipher(context, target.baseAddress! + offset, source.baseAddress! + offset, UInt32(length))
                }
            }
            XCTAssertEqual(status, 1)
            offset += length
        }
        return output
    }

    private func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// Names the first byte that differs rather than printing 40 KiB.
    private func assertSame(
        _ actual: [UInt8], _ expected: [UInt8], _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard actual != expected else { return }
        let common = min(actual.count, expected.count)
        let first = (0..<common).first { actual[$0] != expected[$0] } ?? common
        XCTFail(
            "\(what): \(actual.count) bytes against \(expected.count), first difference at byte \(first) "
                + "(block \(first / 16))", file: file, line: line)
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testLibssh2sCipherIsTheBatchedOne() throws {
        let context = try XCTUnwrap(EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(context) }
        XCTAssertEqual(EVP_CipherInit(context, EVP_aes_128_ctr(), [UInt8](repeating: 1, count: 16), nil, 1), 1)
        // OpenSSL's own AES-CTR comes from its default provider; the engine's cipher has none.
        XCTAssertNil(EVP_CIPHER_get0_provider(EVP_CIPHER_CTX_get0_cipher(context)))
    }

    /// NIST SP 800-38A, F.5.1, F.5.3 and F.5.5: CTR-AES128/192/256.Encrypt, four blocks.
    func testNISTVectors() throws {
        let plaintext = bytes(
            """
            6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
            30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710
            """)
        let counter = bytes("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        let vectors = [
            (
                "2b7e151628aed2a6abf7158809cf4f3c",
                """
                874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff
                5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee
                """
            ),
            (
                "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
                """
                1abc932417521ca24f2b0459fe7e6e0b 090339ec0aa6faefd5ccc2c6f4ce8e94
                1e36b26bd1ebc670d1bd1d665620abf7 4f78a7f6d29809585a97daec58c6b050
                """
            ),
            (
                "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
                """
                601ec313775789a5b7a7f504bbf3d228 f443e3ca4d62b59aca84e990cacaf5c5
                2b0930daa23de94ce87017ba2d84988d dfc9c58db67aada613c2dd08457941a6
                """
            ),
        ]
        for (key, expected) in vectors {
            XCTAssertEqual(hex(try crypt(plaintext, key: bytes(key), iv: counter)), hex(bytes(expected)), key)
            XCTAssertEqual(try crypt(bytes(expected), key: bytes(key), iv: counter, encrypt: false), plaintext, key)
        }
    }

    /// A new counter, or a new key, set on a context in use: as OpenSSL's own AES-CTR, from the block after the last
    /// one used.
    func testANewCounterOrKeyMidStreamStartsWhereOpenSSLWould() throws {
        let key = [UInt8](repeating: 7, count: 16)
        let otherKey = [UInt8](repeating: 9, count: 16)
        let first = [UInt8](repeating: 0x11, count: 16)
        let second = [UInt8](repeating: 0x22, count: 16)
        let data = [UInt8](repeating: 0x5a, count: 4096 + 48)
        let context = try XCTUnwrap(EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(context) }
        XCTAssertEqual(EVP_CipherInit(context, EVP_aes_128_ctr(), key, first, 1), 1)
        var output = [UInt8](repeating: 0, count: data.count)
        XCTAssertEqual(EVP_Cipher(context, &output, data, 100), 1)  // 6 blocks and 4 bytes of the 7th

        XCTAssertEqual(EVP_CipherInit(context, nil, nil, second, 1), 1)
        XCTAssertEqual(EVP_Cipher(context, &output, data, UInt32(data.count)), 1)
        assertSame(output, try crypt(data, key: key, iv: second), "a new counter")

        // A new key alone: the counter goes on from the block after the last one used (second + 259).
        XCTAssertEqual(EVP_CipherInit(context, nil, otherKey, nil, 1), 1)
        XCTAssertEqual(EVP_Cipher(context, &output, data, 32), 1)
        var next = second  // + 259 (0x103) blocks
        next[15] += 3
        next[14] += 1
        assertSame(Array(output.prefix(32)), try crypt(Array(data.prefix(32)), key: otherKey, iv: next), "a new key")
    }

    /// 40 KiB (ten batches) in libssh2's 16-byte calls and in uneven ones, for each key length, from counters whose
    /// low 64 bits and whole 128 bits wrap within the first batch: byte for byte what `openssl enc` writes.
    func testMatchesOpenSSLAcrossBatchesAndCounterCarries() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-ctr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SystemRandomNumberGenerator()
        let plaintext = (0..<40_960 + 5).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let plainFile = folder.appendingPathComponent("plain")
        try Data(plaintext).write(to: plainFile)
        let counters = [
            "000102030405060708090a0b0c0d0e0f",
            "0011223344556677ffffffffffffff80",  // the low half wraps at block 128
            "fffffffffffffffffffffffffffffff0",  // the whole counter wraps at block 16
        ]
        for keyLength in [16, 24, 32] {
            let key = (0..<keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for counter in counters {
                let cipherFile = folder.appendingPathComponent("cipher-\(keyLength)-\(counter)")
                let result = try CommandRunner.run(
                    URL(fileURLWithPath: "/usr/bin/openssl"),
                    [
                        "enc", "-aes-\(keyLength * 8)-ctr", "-K", hex(key), "-iv", counter, "-in", plainFile.path,
                        "-out", cipherFile.path,
                    ])
                XCTAssertEqual(result.exitCode, 0, result.combined)
                let expected = [UInt8](try Data(contentsOf: cipherFile))
                XCTAssertEqual(expected.count, plaintext.count)
                let what = "key of \(keyLength) bytes, counter \(counter)"
                assertSame(try crypt(plaintext, key: key, iv: bytes(counter)), expected, "16-byte calls, \(what)")
                assertSame(
                    try crypt(plaintext, key: key, iv: bytes(counter), lengths: [16, 1, 4095, 5000, 33, 16, 8192]),
                    expected, "uneven calls, \(what)")
                assertSame(
                    try crypt(expected, key: key, iv: bytes(counter), encrypt: false), plaintext, "decrypting, \(what)")
            }
        }
    }
}

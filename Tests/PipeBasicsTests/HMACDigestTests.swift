import PipeBasics
import XCTest

final class HMACDigestTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// RFC 2202 (HMAC-SHA1) and RFC 4231 (HMAC-SHA256) test vectors.
    func testKnownVectors() {
        XCTAssertEqual(
            hex(
                HMACDigest.authenticationCode(
                    .sha1, key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))),
            "b617318655057264e28bc0b6fb378c8ef146be00")
        XCTAssertEqual(
            hex(
                HMACDigest.authenticationCode(
                    .sha1, key: [UInt8](repeating: 0xaa, count: 80),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
            "aa4ae5e15272d00e95705637ce8a3b55ed402112")
        XCTAssertEqual(
            hex(
                HMACDigest.authenticationCode(
                    .sha256, key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testConstantTimeComparison() {
        XCTAssertTrue(HMACDigest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        XCTAssertFalse(HMACDigest.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(HMACDigest.constantTimeEqual([1, 2, 3], [1, 2]))
    }
}

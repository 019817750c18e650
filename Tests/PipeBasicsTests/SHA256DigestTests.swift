import Foundation
import PipeBasics
import XCTest

final class SHA256DigestTests: XCTestCase {
    func testKnownVectors() {
        XCTAssertEqual(
            SHA256Digest.hex(of: Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(
            SHA256Digest.hex(of: Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testIncrementalEqualsOneShot() {
        let data = Data((0..<100_000).map { UInt8($0 % 251) })
        let digest = SHA256Digest()
        for start in stride(from: 0, to: data.count, by: 7_919) {
            digest.update(data[start..<min(start + 7_919, data.count)])
        }
        XCTAssertEqual(digest.finalizeHex(), SHA256Digest.hex(of: data))
    }
}

import Foundation
import XCTest

@testable import PipeCore

/// A secret is masked in every form Pipe's files may hold it: raw, and as JSON encoders escape it.
final class SecretRedactorTests: XCTestCase {
    private let secret = "p\"a\\ss/wörd\n"

    private func redactor() -> SecretRedactor {
        SecretRedactor(SecretValues(["TOKEN": secret]))
    }

    func testEveryJSONEncodingOfASecretIsMasked() throws {
        struct Holder: Encodable { var message: String }
        let encodings: [Data] = [
            try JSONEncoder().encode(Holder(message: "got \(secret) back")),
            try {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .withoutEscapingSlashes
                return try encoder.encode(Holder(message: "got \(secret) back"))
            }(),
            try JSONSerialization.data(withJSONObject: ["message": "got \(secret) back"]),
            Data(#"{"message":"got p\"a\\ss\/w\u00f6rd\n back"}"#.utf8),
            Data(#"{"message":"got p\"a\\ss/w\u00F6rd\n back"}"#.utf8),
        ]
        for encoded in encodings {
            let text = String(decoding: encoded, as: UTF8.self)
            let redacted = redactor().redact(text)
            XCTAssertFalse(redacted.contains("rd"), "\(text) became \(redacted)")
            XCTAssertTrue(redacted.contains("[secret TOKEN]"), redacted)
            XCTAssertEqual(
                (try JSONSerialization.jsonObject(with: Data(redacted.utf8)) as? [String: String])?["message"],
                "got [secret TOKEN] back", "the JSON no longer parses the same: \(redacted)")
        }
    }

    func testTheRawFormAndTheLongestFormForStreams() {
        XCTAssertEqual(redactor().redact("a \(secret) b"), "a [secret TOKEN] b")
        let longest = SecretRedactor.forms(of: secret).map(\.utf8.count).max()
        XCTAssertEqual(redactor().longestValueBytes, longest)
        XCTAssertGreaterThan(redactor().longestValueBytes, secret.utf8.count)
    }
}

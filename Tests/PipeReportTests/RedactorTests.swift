import PipeReport
import XCTest

final class RedactorTests: XCTestCase {
    func testTheDefaultChangesNothing() {
        XCTAssertTrue(Redactor.none.isEmpty)
        XCTAssertEqual(Redactor.none.redact("token=abc"), "token=abc")
    }

    func testEverySecretIsMaskedLongestFirst() {
        let redactor = Redactor(secrets: ["abc", "abcdef", ""])
        XCTAssertEqual(redactor.redact("x abcdef y abc z"), "x \(Redactor.mask) y \(Redactor.mask) z")
    }

    func testSecretsAreFoundInsideJSONStrings() {
        let redactor = Redactor(secrets: ["pa\"ss\\word"])
        XCTAssertEqual(
            redactor.redactJSON(#"{"text":"login with pa\"ss\\word now"}"#),
            #"{"text":"login with \#(Redactor.mask) now"}"#)
    }
}

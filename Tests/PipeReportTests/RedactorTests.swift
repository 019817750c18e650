import PipeCore
import PipeReport
import XCTest

final class RedactorTests: XCTestCase {
    func testTheDefaultChangesNothing() {
        XCTAssertTrue(SecretRedactor.none.isEmpty)
        XCTAssertEqual(SecretRedactor.none.redact("token=abc"), "token=abc")
    }

    func testEverySecretIsMaskedLongestFirstAndEmptyValuesAreIgnored() {
        let redactor = SecretRedactor(SecretValues(["SHORT": "abc", "LONG": "abcdef", "EMPTY": ""]))
        XCTAssertEqual(redactor.redact("x abcdef y abc z"), "x [secret LONG] y [secret SHORT] z")
    }

    func testSecretsAreFoundInsideJSONStrings() {
        let redactor = SecretRedactor(SecretValues(["PASSWORD": #"pa"ss\word"#]))
        XCTAssertEqual(
            redactor.redactJSON(#"{"text":"login with pa\"ss\\word now"}"#),
            #"{"text":"login with [secret PASSWORD] now"}"#)
    }
}

import PipeApple
import XCTest

final class NumericVersionTests: XCTestCase {
    func testComparesNumericallyNotAsText() throws {
        XCTAssertGreaterThan(try XCTUnwrap(NumericVersion("17.10")), try XCTUnwrap(NumericVersion("17.9")))
        XCTAssertGreaterThan(try XCTUnwrap(NumericVersion("18.0.1")), try XCTUnwrap(NumericVersion("18.0")))
        XCTAssertEqual(NumericVersion("17"), NumericVersion("17.0"))
        XCTAssertEqual(Set([NumericVersion("17")!, NumericVersion("17.0.0")!]).count, 1)
    }

    func testPrefixMatchAcceptsPatchesOnly() throws {
        let installed = try XCTUnwrap(NumericVersion("18.0.1"))
        XCTAssertTrue(installed.matches(prefix: try XCTUnwrap(NumericVersion("18.0"))))
        XCTAssertTrue(installed.matches(prefix: try XCTUnwrap(NumericVersion("18"))))
        XCTAssertFalse(installed.matches(prefix: try XCTUnwrap(NumericVersion("18.1"))))
        XCTAssertFalse(try XCTUnwrap(NumericVersion("18")).matches(prefix: installed))
    }

    func testRejectsWhatIsNotADottedNumber() {
        for text in ["", "abc", "17.", ".5", "17..5", "17.5b", "-1", " 17", "17 ", "1.2.3.4.5.6.7"] {
            XCTAssertNil(NumericVersion(text), "'\(text)' must not parse")
        }
    }
}

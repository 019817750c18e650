import Tiny
import XCTest

final class DoublerTests: XCTestCase {
    func testDoublesTwo() {
        XCTAssertEqual(double(2), 4)
    }

    func testDoublesThreeWrongly() {
        XCTAssertEqual(double(3), 7)
    }
}

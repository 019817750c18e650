import PipeBasics
import XCTest

final class EditDistanceTests: XCTestCase {
    func testDistance() {
        XCTAssertEqual(EditDistance.distance("kitten", "sitting"), 3)
        XCTAssertEqual(EditDistance.distance("", "abc"), 3)
        XCTAssertEqual(EditDistance.distance("same", "same"), 0)
    }

    func testNearestSuggestsCloseWordsOnly() {
        XCTAssertEqual(EditDistance.nearest(to: "--reff", in: ["--ref", "--param", "--udid"]), "--ref")
        XCTAssertEqual(EditDistance.nearest(to: "timout", in: ["timeout", "scheme"]), "timeout")
        XCTAssertNil(EditDistance.nearest(to: "completely-different", in: ["--ref", "--udid"]))
    }
}

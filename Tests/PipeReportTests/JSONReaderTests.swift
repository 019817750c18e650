import Foundation
import PipeReport
import XCTest

final class JSONReaderTests: XCTestCase {
    private func read(_ text: String) -> JSONReader.Result { JSONReader.read(Data(text.utf8)) }

    func testReadsEveryKindOfValue() throws {
        let result = read(
            #"{ "a" : [1, -2.5, 3e2, true, false, null], "b" : "x\/y \"q\" \u00e9 \ud83d\ude00", "c" : {} }"#)
        XCTAssertNil(result.problem)
        let object = try XCTUnwrap(result.value as? [String: Any])
        let array = try XCTUnwrap(object["a"] as? [Any])
        XCTAssertEqual(array[0] as? Int, 1)
        XCTAssertEqual(array[1] as? Double, -2.5)
        XCTAssertEqual(array[2] as? Double, 300)
        XCTAssertEqual(array[3] as? Bool, true)
        XCTAssertEqual(array[4] as? Bool, false)
        XCTAssertTrue(array[5] is NSNull)
        XCTAssertEqual(object["b"] as? String, "x/y \"q\" é 😀")
        XCTAssertEqual((object["c"] as? [String: Any])?.count, 0)
    }

    func testAgreesWithJSONSerializationOnTheFixtures() throws {
        for name in ["root-test-failure-xcode15.3.json", "tests-ref-xcode15.3.json", "root-build-failure.json"] {
            let data = try Fixture.data("xcresult-legacy/\(name)")
            let ours = JSONReader.read(data)
            XCTAssertNil(ours.problem, name)
            let theirs = try JSONSerialization.jsonObject(with: data)
            let reserialized = try JSONSerialization.data(
                withJSONObject: try XCTUnwrap(ours.value), options: .sortedKeys)
            XCTAssertEqual(
                reserialized, try JSONSerialization.data(withJSONObject: theirs, options: .sortedKeys), name)
        }
    }

    func testACutFileKeepsWhatCameBeforeTheCutAndSaysWhere() throws {
        let result = read("{\n  \"done\" : [1, 2],\n  \"open\" : [3, {\"x\" : \"unfinish")
        let problem = try XCTUnwrap(result.problem)
        XCTAssertEqual(problem.line, 3)
        XCTAssertEqual(problem.column, 32)
        XCTAssertEqual(problem.byteOffset, 52)
        XCTAssertEqual(problem.message, "the input ends inside a string")
        let object = try XCTUnwrap(result.value as? [String: Any])
        XCTAssertEqual(object["done"] as? [Int], [1, 2])
        let open = try XCTUnwrap(object["open"] as? [Any])
        XCTAssertEqual(open.first as? Int, 3)
        // The object in progress is kept, without the value that was cut.
        XCTAssertEqual((open.last as? [String: Any])?.count, 0)
    }

    func testTextThatIsNotJSONIsQuoted() throws {
        let result = read("Error: This command is deprecated and will be removed\nUsage: …")
        XCTAssertNil(result.value)
        XCTAssertEqual(
            result.problem?.message, "not JSON: it starts with 'Error: This command is deprecated and will be removed'")
        XCTAssertEqual(result.problem?.line, 1)
    }

    func testBinaryDataIsNamedAsSuch() throws {
        var data = Data("{\"a\" : ".utf8)
        data.append(contentsOf: [0x00, 0x1F, 0x8B])
        let result = JSONReader.read(data)
        XCTAssertEqual(result.problem?.byteOffset, 7)
        XCTAssertEqual(result.problem?.message, "a NUL byte where a JSON value should be: binary data, not JSON")
        XCTAssertEqual((result.value as? [String: Any])?.count, 0)
    }

    func testOtherMistakesAreLocated() {
        XCTAssertEqual(read("").problem?.message, "the input is empty")
        XCTAssertEqual(read("[1 2]").problem?.message, "found '2' where ',' or ']' in an array should be")
        XCTAssertEqual(read("{\"a\" 1}").problem?.message, "found '1' where ':' after the key \"a\" should be")
        XCTAssertEqual(read("{} x").problem?.message, "unexpected text after the JSON value")
        XCTAssertEqual(read("[1.]").problem?.message, "a number without digits after '.'")
        XCTAssertEqual(read("[tru]").problem?.message, "found ']' where 'true' should be")
        XCTAssertEqual(read("\"a\tb\"").problem?.message, "a control character inside a string")
        XCTAssertEqual(read("\"\\x\"").problem?.message, "an invalid escape in a string")
        let deep = String(repeating: "[", count: JSONReader.maximumDepth + 1)
        XCTAssertEqual(read(deep).problem?.message, "nested deeper than \(JSONReader.maximumDepth) levels")
    }
}

import PipeForge
import PipeTestSupport
import XCTest

final class ForgeJSONTests: XCTestCase {
    func testEncodingKeepsOrderAndEscapesEveryHostileString() throws {
        let value = ForgeJSON.object([("b", .integer(1)), ("a", .array([.bool(true), .null, .number(1.5)]))])
        XCTAssertEqual(String(decoding: value.encoded, as: UTF8.self), #"{"b":1,"a":[true,null,1.5]}"#)
        for text in InjectionCorpus.strings + ["\u{2028}\u{7F}\"\\"] {
            let encoded = ForgeJSON.object([("body", .string(text))]).encoded
            let parsed = try JSONSerialization.jsonObject(with: Data(encoded)) as? [String: String]
            XCTAssertEqual(parsed?["body"], text)
            XCTAssertEqual(ForgeJSON.decode(encoded)?["body"]?.stringValue, text)
        }
    }

    func testDecodingTellsBooleansFromNumbers() {
        let json = ForgeJSON.decode(Array(#"{"id":12,"push":true,"n":0,"f":2.5,"s":"x","o":{"k":[1]}}"#.utf8))
        XCTAssertEqual(json?["id"]?.intValue, 12)
        XCTAssertEqual(json?["push"]?.boolValue, true)
        XCTAssertNil(json?["n"]?.boolValue)
        XCTAssertEqual(json?["n"]?.intValue, 0)
        XCTAssertEqual(json?["f"], .number(2.5))
        XCTAssertEqual(json?["o"]?["k"]?.arrayValue, [.integer(1)])
        XCTAssertNil(ForgeJSON.decode(Array("<html>".utf8)))
        XCTAssertNil(ForgeJSON.decode([]))
    }
}

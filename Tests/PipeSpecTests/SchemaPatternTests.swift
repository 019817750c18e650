import Foundation
import XCTest

@testable import PipeSpec

/// The schemas' patterns for durations and sizes take the texts the parsers take, and refuse the others.
final class SchemaPatternTests: XCTestCase {
    private func matches(_ pattern: String, _ text: String) throws -> Bool {
        let expression = try NSRegularExpression(pattern: pattern)
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    func testDurationPatternAgreesWithTheParser() throws {
        let texts = [
            "90s", "10m", "1h", "1h30m", "1.5h", "14d", "90", "0.5s", ".5m", " 10m ", "5.", "0s1s",
            "0s", "0", "0.0s", "", " ", "soon", "10 m", "10x", "1.5.5h", "h", "-5s", "10mm", "1h-30m",
        ]
        for text in texts {
            XCTAssertEqual(
                try matches(JSONSchemaWriter.durationPattern, text), DurationParser.seconds(from: text) != nil,
                "'\(text)'")
        }
    }

    func testByteSizePatternAgreesWithTheParser() throws {
        let texts = [
            "512KB", "64MB", "2GiB", "1TiB", "100", "64 MB", "64mb", "64B", "1 0MB", " 64MB",
            "0MB", "0", "", "1.5GB", "64i", "64ib", "lots", "MB", "-5MB", "64PB",
        ]
        for text in texts {
            XCTAssertEqual(
                try matches(JSONSchemaWriter.byteSizePattern, text), ByteSizeParser.bytes(from: text) != nil,
                "'\(text)'")
        }
    }

    /// In a pipeline, `${name}` may stand for a value of any type; elsewhere a quoted value is text.
    func testInterpolationOnlyWherePipelinesInterpolate() throws {
        let key = KeyShape("count", .integer(1...4), "")
        func schema(interpolates: Bool) throws -> [String: Any] {
            let file = FileShape(kind: "t", title: "t", root: MappingShape("", [key]), interpolates: interpolates)
            let data = Data(JSONSchemaWriter.text(for: file).utf8)
            let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return (root?["properties"] as? [String: Any])?["count"] as? [String: Any] ?? [:]
        }
        let plain = try schema(interpolates: false)
        XCTAssertEqual(plain["type"] as? String, "integer")
        XCTAssertEqual(plain["minimum"] as? Int, 1)
        XCTAssertEqual(plain["maximum"] as? Int, 4)
        let interpolated = try schema(interpolates: true)
        XCTAssertEqual((interpolated["anyOf"] as? [[String: Any]])?.count, 2)
    }
}

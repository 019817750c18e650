import Foundation
import PipeBasics
import XCTest

final class RunIDTests: XCTestCase {
    func testShapeIsSortableTypeableAndCarriesTheUTCStartTime() throws {
        let start = Date(timeIntervalSince1970: 1_795_960_992)  // 2026-11-29 14:03:12 UTC
        let id = RunID.generate(at: start)
        XCTAssertTrue(id.value.hasPrefix("20261129-140312-"), id.value)
        XCTAssertEqual(id.value.count, 20)
        XCTAssertNotNil(RunID(id.value))
        XCTAssertEqual(id.startTime, start)
        XCTAssertLessThan(RunID.generate(at: start), RunID.generate(at: start.addingTimeInterval(1)))
    }

    func testMalformedIDsAreRefused() {
        for text in ["", "20261129-140312", "20261129-140312-7F3A", "2026112x-140312-7f3a", "20261129_140312-7f3a"] {
            XCTAssertNil(RunID(text), text)
        }
    }

    func testClaimNeverHandsOutTheSameFolderTwiceEvenInTheSameSecond() throws {
        let parent = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("runid-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let instant = Date()
        var seen = Set<String>()
        for _ in 0..<300 {
            let (id, folder) = try RunID.claim(in: parent, at: instant)
            XCTAssertTrue(seen.insert(id.value).inserted, "duplicate id \(id)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path))
        }
    }

    func testResolveAcceptsLastAUniquePrefixOrTheFullID() throws {
        let ids = ["20261129-140312-7f3a", "20261129-140312-7f3b", "20261130-090000-0001"].compactMap(RunID.init)
        XCTAssertEqual(try RunID.resolve("last", among: ids).get().value, "20261130-090000-0001")
        XCTAssertEqual(try RunID.resolve("20261130", among: ids).get().value, "20261130-090000-0001")
        XCTAssertEqual(try RunID.resolve("20261129-140312-7f3b", among: ids).get().value, "20261129-140312-7f3b")
        XCTAssertEqual(RunID.resolve("20261129", among: ids), .failure(.ambiguous("20261129", Array(ids.prefix(2)))))
        XCTAssertEqual(RunID.resolve("2025", among: ids), .failure(.notFound("2025")))
        XCTAssertEqual(RunID.resolve("last", among: []), .failure(.noRuns))
    }
}

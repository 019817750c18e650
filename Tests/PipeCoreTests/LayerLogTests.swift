import Foundation
import XCTest

@testable import PipeCore

/// A layer's raw log and its output events stop at the layer's limit, with one marker and one warning, while the
/// caller goes on reading the stream.
final class LayerLogTests: XCTestCase {
    private final class Events: EventSink {
        var events: [RunEvent] = []
        func emit(_ event: RunEvent) { events.append(event) }
    }

    func testALogThatNeverEndsIsCutAtItsLimitOnceWithAMarkerAndAWarning() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipe-layer-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("xcodebuild.log")
        let events = Events()
        let log = try LayerLog(
            url: url, layer: "logic", events: events, limitBytes: 10_000,
            redactor: SecretRedactor(SecretValues(["TOKEN": "s3cr3t"])))
        let line = Data(String(repeating: "x", count: 99).utf8) + Data("\n".utf8)
        for _ in 0..<1_000 { log.stdout(line) }
        log.stderr(Data("s3cr3t on stderr\n".utf8))
        log.finish()
        XCTAssertTrue(log.wasCut)
        let text = try String(contentsOf: url, encoding: .utf8)
        XCTAssertTrue(
            text.hasSuffix("the layer went on, and its verdict was read from the whole output]\n"),
            text.suffix(200).description)
        let kept = text.components(separatedBy: "\n[pipe: this log was cut")[0]
        XCTAssertEqual(kept.utf8.count, 10_000)
        let shown = events.events.compactMap { event -> String? in
            if case .output(_, _, let text) = event { return text }
            return nil
        }
        XCTAssertEqual(shown.joined().utf8.count, 10_000, "the events carry more than the log keeps")
        let warnings = events.events.filter {
            if case .warning = $0 { return true }
            return false
        }
        XCTAssertEqual(warnings.count, 1)
    }

    func testALogUnderItsLimitIsKeptWholeAndRedacted() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-layer-log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let events = Events()
        let log = try LayerLog(
            url: url, layer: "logic", events: events, limitBytes: 1_000,
            redactor: SecretRedactor(SecretValues(["TOKEN": "s3cr3t"])))
        log.stdout(Data("token s3c".utf8))
        log.stdout(Data("r3t here\n".utf8))
        log.stderr(Data("and s3cr3t\n".utf8))
        log.finish()
        XCTAssertFalse(log.wasCut)
        XCTAssertEqual(
            try String(contentsOf: url, encoding: .utf8), "token [secret TOKEN] here\nand [secret TOKEN]\n")
    }
}

import Foundation
import PipeCLI
import PipeCore
import PipeReport
import XCTest

/// The renderers of `pipe run` and `pipe report`: JSON lines and the live view.
final class RenderingTests: XCTestCase {
    /// One event of every kind, with the fields a run fills in.
    static let everyEvent: [RunEvent] = {
        let choice = SimulatorChoice(simulator: SampleRecords.simulator, reason: "the newest iPhone")
        return [
            .runStarted(runID: "20261129-140312-7f3a", pipeline: "app-intents", requestedBy: "alice"),
            .checkedOut(ref: "main", commit: "3f98907c", workspace: "examples/reader-app"),
            .hostConnected(
                host: "mac-1", endpoint: "pipe-mac@127.0.0.1:2222", keyType: "ssh-ed25519", fingerprint: "SHA256:x"),
            .workspaceUploaded(host: "mac-1", bytes: 2_048_000, seconds: 0.4),
            .simulatorsListed(host: "mac-1", available: 3),
            .simulatorChosen(host: "mac-1", choice: choice),
            .layerStarted(layer: "logic", attempt: 1),
            .remoteCommand(layer: "logic", command: "xcodebuild test -scheme 'Reader'"),
            .remoteProcessStarted(layer: "logic", host: "mac-1", processGroup: 4242),
            .testFinished(
                layer: "logic", result: TestCaseResult(identifier: "A/b()", status: .passed, durationSeconds: 0.01)),
            .testFinished(
                layer: "logic",
                result: TestCaseResult(
                    identifier: "A/c()", status: .failed, durationSeconds: 0.2, failureMessage: "line one\nline two",
                    failureLocation: "A.swift:3")),
            .output(layer: "logic", stream: .stdout, text: "raw \"output\" with s3cr3t\n"),
            .layerFinished(
                layer: "logic", attempt: 1,
                result: LayerResultSummary(
                    outcome: .testsFailed, evidence: ["exit 65"], exitText: "65", passedTests: 1, failedTests: 1,
                    seconds: 3.5)),
            .artifactsPulled(layer: "logic", paths: ["artifacts/r/logic/xcodebuild.log"]),
            .warning("the host is slow"),
            .runFinished(
                summary: RunFinishedSummary(
                    runID: "20261129-140312-7f3a", status: .finished, exitCode: .appFailure,
                    layers: [(name: "logic", outcome: .testsFailed, artifacts: [])], pendingSignoffs: ["haptics"],
                    summaryPath: "artifacts/20261129-140312-7f3a/summary.json", seconds: 9.5, problem: nil)),
        ]
    }()

    func testJSONLinesAreOneObjectPerEventWithItsKindItsTimeAndItsFields() throws {
        var lines: [String] = []
        let renderer = JSONLinesRenderer(
            clock: { Date(timeIntervalSince1970: 1_796_000_000) }, write: { lines.append($0) })
        for event in Self.everyEvent { renderer.emit(event) }
        XCTAssertEqual(lines.count, Self.everyEvent.count)
        for (line, event) in zip(lines, Self.everyEvent) {
            XCTAssertTrue(line.hasSuffix("\n"))
            XCTAssertFalse(line.dropLast().contains("\n"), "one line per event")
            let object = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
            XCTAssertEqual(object["event"] as? String, event.typeName)
            XCTAssertEqual(object["time"] as? String, "2026-11-30T00:53:20.000Z")
            let payload = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(event.jsonPayload.utf8)) as? [String: Any])
            // Every field of the payload is there, and the renderer's own keys never collide with one.
            XCTAssertEqual(Set(object.keys), Set(payload.keys).union(JSONLinesRenderer.reservedKeys), line)
            XCTAssertTrue(Set(payload.keys).isDisjoint(with: JSONLinesRenderer.reservedKeys))
        }
    }

    func testJSONLinesWithoutAClockHaveNoTimeAndSecretsAreMasked() throws {
        var text = ""
        let renderer = JSONLinesRenderer(
            clock: nil, redactor: SecretRedactor(SecretValues(["S0": "s3cr3t"])), write: { text += $0 })
        for event in Self.everyEvent { renderer.emit(event) }
        XCTAssertFalse(text.contains("\"time\""))
        XCTAssertFalse(text.contains("s3cr3t"))
        XCTAssertTrue(text.contains("raw \\\"output\\\" with \(SecretRedactor.mask(for: "S0"))"))
    }

    func testThePlainViewHasTimestampsOnlyWithAClock() {
        var stamped = ""
        var bare = ""
        let clock = { Date(timeIntervalSince1970: 1_796_000_000) }
        let withClock = LiveRenderer(style: .plain, clock: clock, write: { stamped += $0 })
        let withoutClock = LiveRenderer(style: .plain, clock: nil, write: { bare += $0 })
        for event in Self.everyEvent {
            withClock.emit(event)
            withoutClock.emit(event)
        }
        let stampedLines = stamped.split(separator: "\n")
        XCTAssertTrue(stampedLines.allSatisfy { $0.hasPrefix("2026-11-30T00:53:20.000Z ") })
        XCTAssertFalse(bare.contains("2026-11-30T"))
        XCTAssertFalse(bare.contains("\u{1B}"), "no progress line outside a terminal")
        XCTAssertTrue(bare.contains("    ✗ A/c() failed (0.20 s)\n          A.swift:3: line one\n          line two\n"))
    }

    func testTheTerminalViewRewritesAProgressLinePerLayer() {
        var text = ""
        let renderer = LiveRenderer(style: .terminal, write: { text += $0 })
        for event in Self.everyEvent.prefix(13) { renderer.emit(event) }
        let clear = "\r\u{1B}[2K"
        XCTAssertTrue(text.contains("    ✓ A/b() (0.01 s)\n  … logic: 1 passed\(clear)    ✗ A/c() failed (0.20 s)\n"))
        XCTAssertTrue(text.contains("  … logic: 1 passed, 1 failed\(clear)✗ layer logic: tests-failed"))
        XCTAssertFalse(text.contains("2026-"), "no timestamps on a terminal")
    }

    /// Test names, failure messages and raw output come from the host: an ANSI or OSC sequence in them is shown
    /// escaped, never sent to the terminal.
    func testEscapeSequencesFromTheHostAreShownEscaped() {
        var text = ""
        let renderer = LiveRenderer(style: .terminal, verbose: true, write: { text += $0 })
        renderer.emit(.layerStarted(layer: "logic", attempt: 1))
        renderer.emit(
            .testFinished(
                layer: "logic",
                result: TestCaseResult(
                    identifier: "A/\u{1B}]0;pwned\u{07}()", status: .failed,
                    failureMessage: "\u{1B}[2J\u{1B}[Hwiped\nsecond \u{1B}]8;;https://evil.example\u{1B}\\link")))
        renderer.emit(.output(layer: "logic", stream: .stdout, text: "raw \u{1B}[31mred\u{9B}0m\r\tend\n"))
        let withoutOurOwn = text.replacingOccurrences(of: "\r\u{1B}[2K", with: "")
        XCTAssertFalse(withoutOurOwn.contains("\u{1B}"), withoutOurOwn)
        XCTAssertFalse(withoutOurOwn.contains("\u{07}") || withoutOurOwn.contains("\u{9B}"), withoutOurOwn)
        XCTAssertFalse(withoutOurOwn.contains("\r"), withoutOurOwn)
        XCTAssertTrue(withoutOurOwn.contains("A/\\u{1b}]0;pwned\\u{7}() failed"), withoutOurOwn)
        XCTAssertTrue(withoutOurOwn.contains("\\u{1b}[2J\\u{1b}[Hwiped\n"), withoutOurOwn)
        XCTAssertTrue(withoutOurOwn.contains("raw \\u{1b}[31mred\\u{9b}0m\\u{d}\tend\n"), withoutOurOwn)
    }

    func testTheLiveViewMasksSecretsInEveryLine() {
        var text = ""
        let renderer = LiveRenderer(
            style: .plain, verbose: true, clock: nil,
            redactor: SecretRedactor(SecretValues(["S0": "s3cr3t", "S1": "alice"])),
            write: { text += $0 })
        for event in Self.everyEvent { renderer.emit(event) }
        XCTAssertTrue(
            text.contains("raw \"output\" with \(SecretRedactor.mask(for: "S0"))"), "verbose output is shown, masked")
        XCTAssertFalse(text.contains("s3cr3t"))
        XCTAssertFalse(text.contains("alice"))
    }

    /// Two layers running at once, their events interleaved as the engine emits them.
    static let interleaved: [RunEvent] = [
        .layerStarted(layer: "logic", attempt: 1),
        .testFinished(layer: "logic", result: TestCaseResult(identifier: "L/a()", status: .passed)),
        .layerStarted(layer: "intent", attempt: 1),
        .output(layer: "logic", stream: .stdout, text: "logic one\nlogic t"),
        .testFinished(layer: "intent", result: TestCaseResult(identifier: "I/a()", status: .passed)),
        .output(layer: "intent", stream: .stdout, text: "intent one\n"),
        .output(layer: "logic", stream: .stdout, text: "wo\n"),
        .testFinished(
            layer: "logic", result: TestCaseResult(identifier: "L/b()", status: .failed, failureMessage: "boom")),
        .layerFinished(
            layer: "logic", attempt: 1,
            result: LayerResultSummary(
                outcome: .testsFailed, evidence: [], exitText: "65", passedTests: 1, failedTests: 1, seconds: 1)),
        .testFinished(layer: "intent", result: TestCaseResult(identifier: "I/b()", status: .passed)),
    ]

    func testLinesOfLayersRunningAtOnceNameTheirLayerAndRawOutputStaysWholeLines() {
        var text = ""
        let renderer = LiveRenderer(style: .plain, verbose: true, clock: nil, write: { text += $0 })
        for event in Self.interleaved { renderer.emit(event) }
        XCTAssertEqual(
            text,
            """
            ▸ layer logic
                ✓ L/a()
            ▸ layer intent
            [logic] logic one
                [intent] ✓ I/a()
            [intent] intent one
            [logic] logic two
                [logic] ✗ L/b() failed
                      boom
            ✗ layer logic: tests-failed — 1 passed, 1 failed, exit 65 (1.00 s)
                ✓ I/b()

            """, "a layer alone is not named; one running beside another is")
    }

    func testTheTerminalProgressLineCountsEveryRunningLayer() {
        var text = ""
        let renderer = LiveRenderer(style: .terminal, write: { text += $0 })
        for event in Self.interleaved { renderer.emit(event) }
        XCTAssertTrue(text.contains("  … logic: 1 passed · intent: 1 passed"), text)
        XCTAssertTrue(text.contains("  … logic: 1 passed, 1 failed · intent: 1 passed"), text)
        XCTAssertTrue(text.hasSuffix("  … intent: 2 passed"), "logic ended: only intent is counted\n\(text)")
    }
}

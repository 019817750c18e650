import Foundation
import PipeChatOps
import PipeCore
import PipeTestSupport
import XCTest

/// Every string of the injection corpus through what reads chat requests (the form, the slash command's fields,
/// the command's words) and what builds chat messages: values arrive as the same data, and nothing from a host, a
/// test or a request becomes Slack markup (`<!channel>`, `<https://x|text>`) or a terminal escape.
final class ChatInjectionCorpusTests: XCTestCase {
    private static func formEscaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// What must never appear in a message built from hostile text.
    private func assertInert(_ message: String, _ input: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(message.contains("<!"), "a mention from \(input.debugDescription)", file: file, line: line)
        XCTAssertFalse(message.contains("<http"), "a link from \(input.debugDescription)", file: file, line: line)
        XCTAssertFalse(
            message.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E },
            "a control character from \(input.debugDescription)", file: file, line: line)
        // A line that starts with "> " is the message's own quote of a problem.
        let own = message.replacingOccurrences(of: "\n> ", with: "\n")
        for character in own.unicodeScalars where character == "<" || character == ">" {
            XCTFail("a raw \(character) from \(input.debugDescription): \(message.prefix(300))", file: file, line: line)
            break
        }
    }

    func testFormFieldsCarryEveryStringUnchanged() throws {
        for text in InjectionCorpus.strings + [InjectionCorpus.withNUL] {
            let body = "command=%2Fpipe&user_id=U1&user_name=\(Self.formEscaped(text))&text=\(Self.formEscaped(text))"
            let command = try SlashCommand(form: try FormDecoder.dictionary(Array(body.utf8)))
            XCTAssertEqual(command.text, text)
            XCTAssertEqual(command.userName, text)
        }
        for bytes in InjectionCorpus.byteStrings where String(validating: bytes, as: UTF8.self) == nil {
            let escaped = bytes.map { String(format: "%%%02X", $0) }.joined()
            XCTAssertThrowsError(try FormDecoder.decode(Array("text=\(escaped)".utf8)), "\(bytes)")
        }
    }

    func testQuotedStringsAreOneValueAndBareOnesNeverAnotherCommand() throws {
        for text in InjectionCorpus.strings where !text.isEmpty {
            // Written in double quotes with \ and " escaped, every string is exactly one value.
            let quoted =
                "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
            if text.unicodeScalars.contains(where: {
                "\u{201C}\u{201D}\u{201E}\u{00AB}\u{00BB}\u{2018}\u{2019}\u{201A}'"
                    .unicodeScalars.contains($0)
            }) {
                continue
            }
            let parsed = try ChatCommandParser.parse("run app-intents scheme=\(quoted) ref=\(quoted)")
            XCTAssertEqual(
                parsed, .run(pipeline: "app-intents", ref: text, parameters: [KeyValuePair("scheme", text)]),
                text.debugDescription)
            // Unquoted, a string is words of the same command, or a clear refusal; never more than it says.
            do {
                switch try ChatCommandParser.parse("status \(text)") {
                case .status(let run):
                    if !text.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" }) {
                        XCTAssertEqual(run, text)
                    }
                case .help: XCTAssertTrue(text.allSatisfy(\.isWhitespace))
                default: XCTFail("status \(text.debugDescription) became another command")
                }
            } catch {
                XCTAssertFalse(error.message.isEmpty)
            }
        }
    }

    func testNothingFromAHostOrATestBecomesMarkupInAMessage() {
        for text in InjectionCorpus.strings where !text.isEmpty {
            let failing = TestCaseResult(
                identifier: "Suite/\(text)()", status: .failed, failureMessage: "expected \(text)\n\(text)",
                failureLocation: "\(text).swift:1")
            let layer = RunRecord.LayerRecord(
                name: text, plugin: "xcodebuild-test", gate: .merge, outcome: .testsFailed,
                evidence: ["log tail: \(text)"], tests: [failing])
            let record = RunRecord(
                runID: "20261129-140312-7f3a", pipeline: text, pipelineFile: "pipelines/app-intents.yml",
                status: .finished,
                request: .init(
                    pipeline: text, ref: text, workspace: "examples/reader-app", requestedBy: text, trigger: "chat"),
                startedAt: "2026-11-29T14:03:12Z", durationSeconds: 42, exitCode: 1, problem: text, layers: [layer])
            assertInert(ChatMessages.mergeGate(record), text)
            assertInert(ChatMessages.status(record), text)
            assertInert(ChatMessages.final(record), text)
            assertInert(ChatMessages.started(record), text)
            assertInert(ChatMessages.queued(ChatQueuedRun(runID: text, pipeline: text, ref: text)), text)
            assertInert(
                ChatMessages.runs(
                    [
                        RunSummary(
                            runID: text, pipeline: text, status: .finished, startedAt: Date(), finishedAt: nil,
                            durationSeconds: nil, exitCode: 1, commit: nil, hostName: text, requestedBy: text,
                            trigger: text, problem: text, cancellationRequested: false, layers: [])
                    ],
                    pipeline: text), text)
            assertInert(
                ChatMessages.gate(
                    ChatGateReport(
                        runID: text, pipeline: text, gate: .merge, verdict: .failed, headline: text,
                        layers: [.init(name: text, gate: .merge, outcome: .testsFailed, reason: text)])), text)
            assertInert(
                ChatMessages.hosts(
                    [
                        ChatHostReport(
                            name: text, endpoint: text, capacity: 1, busy: 0, usable: false, problem: text,
                            checkedAt: nil)
                    ]),
                text)
            assertInert(ChatText.block(text), text)
        }
        XCTAssertEqual(ChatText.plain("<!channel> & <https://x|text>"), "&lt;!channel&gt; &amp; &lt;https://x|text&gt;")
        XCTAssertEqual(ChatText.plain("\u{1B}]0;pwned\u{07}"), "\\u{1B}]0;pwned\\u{7}")
    }
}

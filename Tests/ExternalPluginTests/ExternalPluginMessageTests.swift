import ExternalPlugin
import Foundation
import PipeCore
import XCTest

/// Parsing what plugins write: every message type, and every way a line can break the protocol.
final class ExternalPluginMessageTests: XCTestCase {
    private func violation(
        _ line: String, version: Int = 1, file: StaticString = #filePath, line number: UInt = #line
    ) -> String {
        do {
            let message = try ExternalPluginMessage.parse(line, version: version)
            XCTFail("accepted \(message)", file: file, line: number)
            return ""
        } catch {
            return error.message
        }
    }

    func testParsesEachMessageType() throws {
        XCTAssertEqual(try ExternalPluginMessage.parse(version1: #"{"type":"log","text":"hi"}"#), .log("hi"))
        XCTAssertEqual(
            try ExternalPluginMessage.parse(
                version1:
                    #"{"type":"test","identifier":"A/b","status":"failed","durationSeconds":1,"failureMessage":"no","failureLocation":"A.swift:3"}"#
            ),
            .test(
                TestCaseResult(
                    identifier: "A/b", status: .failed, durationSeconds: 1, failureMessage: "no",
                    failureLocation: "A.swift:3")))
        XCTAssertEqual(
            try ExternalPluginMessage.parse(version1: #"{"type":"host-command","id":"1","argv":["uname","-m"]}"#),
            .hostCommand(id: "1", argv: ["uname", "-m"], timeoutSeconds: 60))
        XCTAssertEqual(
            try ExternalPluginMessage.parse(
                version1:
                    #"{"type":"result","protocol":1,"outcome":"tests-failed","evidence":["2 findings"],"facts":{"a":"b"},"artifacts":[{"path":"r.txt","kind":"log"},{"path":"x"}]}"#
            ),
            .result(
                ExternalPluginResult(
                    outcome: .testsFailed, evidence: ["2 findings"], facts: ["a": "b"],
                    artifacts: [.init(path: "r.txt", kind: .log), .init(path: "x", kind: .other)])))
    }

    func testMalformedLinesAreNamed() {
        XCTAssertEqual(violation("not json"), "malformed JSON on stdout: `not json`")
        XCTAssertEqual(violation("[1,2]"), "a line on stdout is not a JSON object: `[1,2]`")
        XCTAssertEqual(violation(#"{"text":"hi"}"#), #"a message has no "type": `{"text":"hi"}`"#)
        XCTAssertEqual(
            violation(#"{"type":"shout"}"#),
            #"unknown message type "shout" (protocol 1 has log, test, host-command, result)"#)
    }

    func testWrongFieldTypesAreNamed() {
        XCTAssertEqual(violation(#"{"type":"log","text":3}"#), #"log message: "text" must be a string"#)
        XCTAssertEqual(
            violation(#"{"type":"test","identifier":"a","status":"green"}"#),
            #"test message: "status" is "green", expected one of passed, failed, skipped, expected-failure"#)
        XCTAssertEqual(
            violation(#"{"type":"host-command","id":"1","argv":[]}"#), #"host-command message: "argv" is empty"#)
        XCTAssertEqual(
            violation(#"{"type":"result","protocol":1,"outcome":"passed","facts":{"n":1}}"#),
            #"result message: "facts" must be an object of strings"#)
    }

    func testTheResultMustCarryTheProtocolVersion() {
        XCTAssertEqual(
            violation(#"{"type":"result","outcome":"passed"}"#),
            #"result message: the result has no "protocol"; write "protocol": 1"#)
        XCTAssertEqual(
            violation(#"{"type":"result","protocol":2,"outcome":"passed"}"#),
            "the message says protocol 2, but the plugin declared 1 in its description")
        XCTAssertEqual(
            violation(#"{"type":"log","protocol":"1","text":"x"}"#),
            #""protocol" must be a number (the plugin declared 1)"#)
    }

    /// Protocol 2 adds a test's `target`; a plugin of protocol 1 that writes one is read as before, without it.
    func testATestsTargetIsReadFromProtocol2On() throws {
        let line = #"{"type":"test","identifier":"A/b()","status":"passed","target":"KitTests"}"#
        XCTAssertEqual(
            try ExternalPluginMessage.parse(line, version: 2),
            .test(TestCaseResult(identifier: "A/b()", status: .passed, target: "KitTests")))
        XCTAssertEqual(
            try ExternalPluginMessage.parse(line, version: 1),
            .test(TestCaseResult(identifier: "A/b()", status: .passed)))
        XCTAssertEqual(
            violation(#"{"type":"result","protocol":1,"outcome":"passed"}"#, version: 2),
            "the message says protocol 1, but the plugin declared 2 in its description")
    }

    func testOutcomesPipeDecidesItselfCannotBeReported() {
        for outcome in ["timed-out", "cancelled", "skipped", "signed-off", "rejected", "green"] {
            let message = violation(#"{"type":"result","protocol":1,"outcome":"\#(outcome)"}"#)
            XCTAssertTrue(message.hasPrefix(#"result message: "outcome" is "\#(outcome)""#), message)
        }
    }

    /// A test retry: protocol 2 names the failed tests (with their targets); protocol 1 gets its old request.
    func testTheRequestNamesTheTestsToRetryOnlyFromProtocol2On() throws {
        var request = ExternalPluginRequest(
            runID: "r1", pipeline: "p", runStartedAt: Date(timeIntervalSince1970: 0),
            layer: LayerSpec(name: "lint", plugin: "lint", gate: .merge), attempt: 2, timeoutSeconds: 30,
            hostName: "mac-1", remoteRunFolder: "/w/r", remoteWorkspace: "/w/r/ws", simulator: nil,
            artifactsFolder: URL(fileURLWithPath: "/p/a"), projectDirectory: URL(fileURLWithPath: "/p"),
            localWorkspace: nil)
        request.testsToRetry = [
            TestCaseResult(identifier: "S/t()", status: .failed, target: "KitTests"),
            TestCaseResult(identifier: "S/u()", status: .failed),
        ]
        func object() throws -> (version: Int?, layer: [String: Any]) {
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: request.jsonLine()) as? [String: Any])
            return (json["protocol"] as? Int, try XCTUnwrap(json["layer"] as? [String: Any]))
        }
        let current = try object()
        XCTAssertEqual(current.version, 2)
        XCTAssertEqual(
            current.layer["testsToRetry"] as? [[String: String]],
            [
                ["identifier": "S/t()", "status": "failed", "target": "KitTests"],
                ["identifier": "S/u()", "status": "failed"],
            ])
        request.protocolVersion = 1
        let old = try object()
        XCTAssertEqual(old.version, 1)
        XCTAssertNil(old.layer["testsToRetry"])
    }

    func testTheRequestCarriesSettingsAsPlainJSON() throws {
        let request = ExternalPluginRequest(
            runID: "r1", pipeline: "p", runStartedAt: Date(timeIntervalSince1970: 0),
            layer: LayerSpec(
                name: "lint", plugin: "source-lint", gate: .merge,
                settings: [
                    "paths": .strings(["Sources"]), "max": .integer(120), "strict": .boolean(true),
                    "env": .map(["A": "1"]), "name": .string("x"),
                ]),
            attempt: 2, timeoutSeconds: 30, hostName: "mac-1", remoteRunFolder: "/w/runs/r1",
            remoteWorkspace: "/w/runs/r1/workspace", simulator: nil, artifactsFolder: URL(fileURLWithPath: "/p/a"),
            projectDirectory: URL(fileURLWithPath: "/p"), localWorkspace: nil)
        let line = try request.jsonLine()
        XCTAssertEqual(line.last, UInt8(ascii: "\n"))
        XCTAssertEqual(line.filter { $0 == UInt8(ascii: "\n") }.count, 1, "one line")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        XCTAssertEqual(object["protocol"] as? Int, 2)
        XCTAssertEqual(object["type"] as? String, "run")
        let layer = try XCTUnwrap(object["layer"] as? [String: Any])
        XCTAssertEqual(layer["testsToRetry"] as? [[String: String]], [], "protocol 2: none on a first attempt")
        XCTAssertEqual(layer["kind"] as? String, "source-lint")
        XCTAssertEqual(layer["attempt"] as? Int, 2)
        let settings = try XCTUnwrap(layer["settings"] as? [String: Any])
        XCTAssertEqual(settings["paths"] as? [String], ["Sources"])
        XCTAssertEqual(settings["max"] as? Int, 120)
        XCTAssertEqual(settings["strict"] as? Bool, true)
        XCTAssertEqual(settings["env"] as? [String: String], ["A": "1"])
        XCTAssertTrue(object["simulator"] is NSNull)
        XCTAssertTrue((object["local"] as? [String: Any])?["workspace"] is NSNull)
        XCTAssertEqual((object["run"] as? [String: Any])?["startedAt"] as? String, "1970-01-01T00:00:00.000Z")
    }

    func testKindNames() {
        XCTAssertTrue(ExternalPluginProtocol.isValidKind("source-lint"))
        XCTAssertTrue(ExternalPluginProtocol.isValidKind("l10n"))
        for bad in ["", "-x", "Lint", "a/b", "../x", "a b", "a_b"] {
            XCTAssertFalse(ExternalPluginProtocol.isValidKind(bad), bad)
        }
    }
}

extension ExternalPluginMessage {
    /// A line of a plugin that declared protocol 1.
    fileprivate static func parse(version1 line: String) throws -> ExternalPluginMessage {
        try parse(line, version: 1)
    }
}

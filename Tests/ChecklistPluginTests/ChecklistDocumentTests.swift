import ChecklistPlugin
import Foundation
import PipeCore
import XCTest

final class ChecklistDocumentTests: XCTestCase {
    private let simulator = Simulator(
        udid: "90052AC6-D47D-4B2A-840D-6B5B081260C6", name: "iPhone 15",
        runtimeIdentifier: "com.apple.CoreSimulator.SimRuntime.iOS-17-5", runtimeName: "iOS 17.5", platform: "iOS",
        runtimeVersion: "17.5", state: "Booted")
    private let settings = ChecklistSettings(
        items: ["Open Shortcuts and search for \"Check Reading ID\"", "Run it with \" book_7 \""],
        fields: ["os_version", "app_build"], fieldsOnFail: ["steps"], install: "build/Reader.app",
        launch: "com.example.reader")

    private func document(problem: String? = nil) -> ChecklistDocument {
        ChecklistDocument(
            runID: "20261129-140312-7f3a", pipeline: "app-intents", layer: "shortcuts", gate: .release,
            settings: settings, host: "mac-1", simulator: simulator,
            installed: "/Users/pipe/pipe-work/runs/20261129-140312-7f3a/workspace/build/Reader.app",
            launched: .init(bundleID: "com.example.reader", processID: "41234"), problem: problem,
            preparedAt: Date(timeIntervalSince1970: 1_795_960_992))
    }

    func testTheSignoffCommandsNameEveryRequiredFieldAndAreShellSafe() {
        XCTAssertEqual(
            document().signoffCommands.pass,
            "pipe signoff 20261129-140312-7f3a shortcuts --result pass --field 'os_version=<os_version>' "
                + "--field 'app_build=<app_build>' --note '<what you saw>'")
        XCTAssertEqual(
            document().signoffCommands.fail,
            "pipe signoff 20261129-140312-7f3a shortcuts --result fail --field 'os_version=<os_version>' "
                + "--field 'app_build=<app_build>' --field 'steps=<steps>' --note '<what you saw>'")
    }

    func testMarkdownSaysWhereWhatWasPreparedTheItemsAndHowToSign() {
        let markdown = document().markdown
        for expected in [
            "# Checklist: shortcuts (app-intents, run 20261129-140312-7f3a)",
            "- Host: `mac-1`",
            "- Simulator: iPhone 15, iOS 17.5 — UDID `90052AC6-D47D-4B2A-840D-6B5B081260C6`",
            "- Installed: `/Users/pipe/pipe-work/runs/20261129-140312-7f3a/workspace/build/Reader.app`",
            "- Launched: `com.example.reader` (pid 41234)",
            "1. [ ] Open Shortcuts and search for \"Check Reading ID\"",
            "2. [ ] Run it with \" book_7 \"",
            "- `os_version` (always)",
            "- `steps` (when the result is fail)",
            "pipe signoff 20261129-140312-7f3a shortcuts --result pass",
        ] {
            XCTAssertTrue(markdown.contains(expected), "missing \(expected) in:\n\(markdown)")
        }
        XCTAssertFalse(markdown.contains("Could not prepare"))
    }

    func testAProblemIsShownFirstThing() {
        XCTAssertTrue(
            document(problem: "could not install").markdown.contains("**Could not prepare:** could not install"))
    }

    func testADeviceChecklistNamesNoSimulator() {
        let device = ChecklistDocument(
            runID: "r", pipeline: "haptics", layer: "device", gate: .release,
            settings: ChecklistSettings(items: ["Save"], fields: ["device"], target: .device), host: "mac-1",
            simulator: simulator, installed: nil, launched: nil, problem: nil, preparedAt: Date())
        XCTAssertNil(device.simulator)
        XCTAssertTrue(device.markdown.contains("On a **physical device**"), device.markdown)
        XCTAssertFalse(device.markdown.contains(simulator.udid))
    }

    func testJSONHoldsTheFactsUnderStableKeys() throws {
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: document().jsonData()) as? [String: Any])
        XCTAssertEqual(object["schemaVersion"] as? Int, 1)
        XCTAssertEqual(object["host"] as? String, "mac-1")
        XCTAssertEqual(object["on"] as? String, "simulator")
        XCTAssertEqual((object["simulator"] as? [String: Any])?["udid"] as? String, simulator.udid)
        XCTAssertEqual((object["simulator"] as? [String: Any])?["runtime"] as? String, "iOS 17.5")
        XCTAssertEqual((object["launched"] as? [String: Any])?["bundleID"] as? String, "com.example.reader")
        XCTAssertEqual((object["items"] as? [String])?.count, 2)
        XCTAssertEqual(object["fieldsOnFail"] as? [String], ["steps"])
        XCTAssertEqual(object["preparedAt"] as? String, "2026-11-29T14:03:12.000Z")
        XCTAssertNotNil((object["signoffCommands"] as? [String: Any])?["pass"])
    }
}

import ChecklistPlugin
import PipeCore
import XCTest

final class ChecklistSettingsTests: XCTestCase {
    private func layer(_ settings: [String: SettingValue]) -> LayerSpec {
        LayerSpec(name: "shortcuts", plugin: "checklist", gate: .release, settings: settings)
    }

    func testReadsEverySetting() throws {
        let settings = try ChecklistSettings(
            layer: layer([
                "items": .strings(["Open Shortcuts", "Run it"]), "fields": .strings(["os_version", "app_build"]),
                "fields-on-fail": .strings(["steps"]), "install": .string("build/Reader.app"),
                "launch": .string("com.example.reader"),
            ]))
        XCTAssertEqual(
            settings,
            ChecklistSettings(
                items: ["Open Shortcuts", "Run it"], fields: ["os_version", "app_build"], fieldsOnFail: ["steps"],
                install: "build/Reader.app", launch: "com.example.reader", target: .simulator))
        XCTAssertEqual(settings.requirements.required(for: .pass), ["os_version", "app_build"])
        XCTAssertEqual(settings.requirements.required(for: .fail), ["os_version", "app_build", "steps"])
    }

    func testBootTimeoutDefaultsTo120AndIsRead() throws {
        XCTAssertEqual(try ChecklistSettings(layer: layer(["items": .strings(["x"])])).bootTimeoutSeconds, 120)
        let settings = try ChecklistSettings(layer: layer(["items": .strings(["x"]), "boot-timeout": .integer(30)]))
        XCTAssertEqual(settings.bootTimeoutSeconds, 30)
    }

    func testANonPositiveBootTimeoutIsRefused() {
        XCTAssertThrowsError(
            try ChecklistSettings(layer: layer(["items": .strings(["x"]), "boot-timeout": .integer(0)]))
        ) { error in
            XCTAssertTrue("\(error)".contains("boot-timeout"), "\(error)")
        }
    }

    func testAnEmptyInstallOrLaunchFromADefaultParameterMeansNone() throws {
        let settings = try ChecklistSettings(
            layer: layer(["items": .strings(["x"]), "install": .string(""), "launch": .string(" ")]))
        XCTAssertNil(settings.install)
        XCTAssertNil(settings.launch)
    }

    func testInstallOnADeviceIsRefused() {
        XCTAssertThrowsError(
            try ChecklistSettings(
                layer: layer(["items": .strings(["x"]), "on": .string("device"), "install": .string("A.app")]))
        ) { error in
            XCTAssertTrue("\(error)".contains("not with `on: device`"), "\(error)")
        }
    }

    func testAnUnknownTargetIsRefused() {
        XCTAssertThrowsError(
            try ChecklistSettings(layer: layer(["items": .strings(["x"]), "on": .string("ipad")])))
    }

    func testAFieldInBothListsIsRefused() {
        XCTAssertThrowsError(
            try ChecklistSettings(
                layer: layer([
                    "items": .strings(["x"]), "fields": .strings(["steps"]), "fields-on-fail": .strings(["steps"]),
                ]))
        ) { error in
            XCTAssertEqual(
                "\(error)", "layer shortcuts: steps is in both `fields` and `fields-on-fail`; keep it in one")
        }
    }

    func testNoItemsIsRefused() {
        XCTAssertThrowsError(try ChecklistSettings(layer: layer(["items": .strings([])])))
    }
}

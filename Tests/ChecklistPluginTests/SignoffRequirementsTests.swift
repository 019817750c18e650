import ChecklistPlugin
import PipeCore
import XCTest

/// Sign-off validation: the app-intents `shortcuts` layer always needs os_version and app_build, and steps when the
/// result is fail.
final class SignoffRequirementsTests: XCTestCase {
    private let shortcuts = SignoffRequirements(fields: ["os_version", "app_build"], fieldsOnFail: ["steps"])

    private func refusal(
        _ result: SignoffResult, _ fields: [(key: String, value: String)], file: StaticString = #filePath,
        line: UInt = #line
    ) -> [String] {
        do {
            let values = try shortcuts.validate(result: result, fields: fields, layer: "shortcuts")
            XCTFail("accepted \(values)", file: file, line: line)
            return []
        } catch {
            XCTAssertEqual(error.layer, "shortcuts", file: file, line: line)
            return error.problems
        }
    }

    func testAPassWithTheAlwaysRequiredFieldsIsAccepted() throws {
        let values = try shortcuts.validate(
            result: .pass, fields: [("os_version", "17.5"), ("app_build", "1.0 (42)")], layer: "shortcuts")
        XCTAssertEqual(values, ["os_version": "17.5", "app_build": "1.0 (42)"])
    }

    func testAPassDoesNotNeedTheFailOnlyFieldButMayGiveIt() throws {
        let values = try shortcuts.validate(
            result: .pass, fields: [("os_version", "17.5"), ("app_build", "42"), ("steps", "install, launch")],
            layer: "shortcuts")
        XCTAssertEqual(values["steps"], "install, launch")
    }

    func testAFailWithoutStepsIsRefusedNamingIt() {
        let problems = refusal(.fail, [("os_version", "17.5"), ("app_build", "42")])
        XCTAssertEqual(
            problems, ["missing steps: a fail sign-off of shortcuts must also give --field steps=…"])
    }

    func testAFailWithStepsIsAccepted() throws {
        let values = try shortcuts.validate(
            result: .fail,
            fields: [("os_version", "17.5"), ("app_build", "42"), ("steps", "install; launch; open Shortcuts")],
            layer: "shortcuts")
        XCTAssertEqual(values.count, 3)
    }

    func testEveryMissingFieldIsListedAtOnce() {
        let problems = refusal(.fail, [])
        XCTAssertEqual(
            problems,
            [
                "missing os_version, app_build: every sign-off of shortcuts must give --field os_version=… "
                    + "--field app_build=…",
                "missing steps: a fail sign-off of shortcuts must also give --field steps=…",
            ])
    }

    func testAnUndeclaredFieldIsRefusedWithTheNearestName() {
        let problems = refusal(.pass, [("os-version", "17.5"), ("app_build", "42")])
        XCTAssertEqual(problems.count, 2, "\(problems)")
        XCTAssertEqual(
            problems[0],
            "layer shortcuts asks for no field 'os-version' (did you mean os_version?); it asks for: os_version, "
                + "app_build, steps (on fail)")
        XCTAssertTrue(problems[1].hasPrefix("missing os_version:"), problems[1])
    }

    func testAnEmptyValueIsRefused() {
        let problems = refusal(.pass, [("os_version", "  "), ("app_build", "42")])
        XCTAssertTrue(problems.contains("field os_version is empty; say what you saw (or 'none')"), "\(problems)")
    }

    func testAFieldGivenTwiceIsRefused() {
        let problems = refusal(.pass, [("os_version", "17.5"), ("os_version", "18.2"), ("app_build", "42")])
        XCTAssertEqual(problems, ["field os_version is given twice; give it once"])
    }

    func testALayerWithoutDeclaredFieldsAcceptsNoFields() throws {
        let none = SignoffRequirements(fields: [], fieldsOnFail: [])
        XCTAssertEqual(try none.validate(result: .fail, fields: [], layer: "manual"), [:])
        XCTAssertThrowsError(try none.validate(result: .pass, fields: [("device", "iPhone")], layer: "manual"))
    }

    func testUndeclaredFieldsAreKeptWhereTheLayerAcceptsThem() throws {
        let open = SignoffRequirements(fields: ["device"], fieldsOnFail: [], acceptsUndeclaredFields: true)
        let values = try open.validate(
            result: .pass, fields: [("device", "iPhone 15"), ("mood", "calm")], layer: "external")
        XCTAssertEqual(values, ["device": "iPhone 15", "mood": "calm"])
    }

    func testResultsMapToTheStoreDecisions() {
        XCTAssertEqual(SignoffResult.pass.decision, .signedOff)
        XCTAssertEqual(SignoffResult.fail.decision, .rejected)
        XCTAssertEqual(SignoffResult.fail.decision.outcome, .rejected)
    }

    func testRefusalTextListsEveryProblem() {
        let refusal = SignoffRefusal(layer: "device", problems: ["a", "b"])
        XCTAssertEqual(refusal.description, "sign-off of device refused, nothing recorded:\n  - a\n  - b")
    }
}

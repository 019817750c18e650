import Foundation
import PipeApple
import PipeCore
import XCTest

final class SimctlListParserTextTests: XCTestCase {
    func testXcode15NamesWithParenthesesAreReadFromTheRight() throws {
        let simulators = try SimctlListParser.parseText(try Fixture.text("simctl/text-xcode15.4.txt"))
        XCTAssertEqual(
            simulators.map(\.name),
            [
                "iPhone SE (3rd generation)", "iPhone 15", "iPad Air 11-inch (M2)", "iPad Pro 13-inch (M4)",
                "Apple Vision Pro", "Apple Vision Pro",
            ])
        XCTAssertEqual(simulators[0].udid, "35F4F862-1AF3-44B6-B6B0-4F9D00CD6428")
        XCTAssertEqual(simulators[2].udid, "1DB0B4D1-3C75-4E83-8717-F4E60DE91502")
        XCTAssertEqual(simulators[4].platform, "visionOS")
        XCTAssertEqual(simulators[4].runtimeVersion, "1.2")
        XCTAssertTrue(simulators.allSatisfy(\.isAvailable))
        XCTAssertEqual(Set(simulators.map(\.state)), ["Shutdown"])
    }

    func testXcode26TrailingSpacesAndAnUnavailableSection() throws {
        let simulators = try SimctlListParser.parseText(try Fixture.text("simctl/text-xcode26.3.txt"))
        XCTAssertEqual(simulators.count, 5)
        let booted = try XCTUnwrap(simulators.first { $0.name == "iPhone 17 Pro" })
        XCTAssertEqual(booted.state, "Booted")
        XCTAssertEqual(booted.udid, "FCFE9A4C-A3BA-4AD4-B160-2679BFE19258")
        XCTAssertEqual(
            try XCTUnwrap(simulators.first { $0.name == "iPad (A16)" }).udid, "21D822CC-6844-4115-8426-8CE7F0D5F3F6")
        let unavailable = try XCTUnwrap(simulators.first { $0.name == "iPhone 17" })
        XCTAssertFalse(unavailable.isAvailable)
        XCTAssertEqual(unavailable.state, "Shutdown")
        XCTAssertEqual(unavailable.availabilityError, "runtime profile not found using \"System\" match policy")
        XCTAssertEqual(unavailable.runtimeIdentifier, "com.apple.CoreSimulator.SimRuntime.iOS-26-2")
        XCTAssertEqual(unavailable.runtimeName, "iOS 26.2")
    }

    func testXcode10UnavailableRuntimeAndUnavailableDevicesInAvailableSections() throws {
        let simulators = try SimctlListParser.parseText(try Fixture.text("simctl/text-xcode10-unavailable.txt"))
        let byUDID = Dictionary(uniqueKeysWithValues: simulators.map { ($0.udid, $0) })
        XCTAssertEqual(byUDID["238C6D64-8720-4BFF-9DE9-FFBB9A1375D4"]?.isAvailable, true)
        // Listed under `-- Unavailable: … --` without its own reason.
        XCTAssertEqual(byUDID["8350A403-0E68-4F48-8ABA-C392F9CB8D7C"]?.isAvailable, false)
        XCTAssertEqual(byUDID["8350A403-0E68-4F48-8ABA-C392F9CB8D7C"]?.state, "Booted")
        XCTAssertEqual(byUDID["2721F3DC-A96B-4CA4-A9BD-B7CE3595BC82"]?.availabilityError, "runtime profile not found")
        let watch = try XCTUnwrap(byUDID["3BE7BCB8-BCDB-45A2-8569-48B657BDD44E"])
        XCTAssertEqual(watch.name, "Apple Watch - 42mm")
        XCTAssertFalse(watch.isAvailable)
        XCTAssertEqual(watch.availabilityError, "device type not supported by runtime")
    }

    func testFullListingUsesTheRuntimesSectionAndIgnoresPairs() throws {
        let simulators = try SimctlListParser.parseText(try Fixture.text("simctl/text-full-xcode13.4.txt"))
        XCTAssertEqual(simulators.count, 1)
        XCTAssertEqual(simulators[0].name, "iPhone 8")
        XCTAssertEqual(simulators[0].udid, "E36D7DEC-9BED-4267-9A78-XXXXXXXXXXXX")
        XCTAssertEqual(simulators[0].runtimeIdentifier, "com.apple.CoreSimulator.SimRuntime.iOS-14-2")
        XCTAssertEqual(simulators[0].state, "Booted")
    }

    func testRepeatedHeaderAndCRLFLineEnds() throws {
        // Two runtimes sharing a display name print the same header twice (apple-formats.md 2.1).
        let text =
            "== Devices ==\r\n-- iOS 15.5 --\r\n-- iOS 15.5 --\r\n"
            + "    iPhone 8 (E36D7DEC-9BED-4267-9A78-000000000000) (Shutdown) \r\n"
        let simulators = try SimctlListParser.parseText(text)
        XCTAssertEqual(simulators.map(\.runtimeName), ["iOS 15.5"])
        XCTAssertEqual(simulators.map(\.state), ["Shutdown"])
    }

    func testUnreadableDeviceLineNamesItsLineNumber() {
        let text = "== Devices ==\n-- iOS 17.5 --\n    iPhone 15 90052AC6 Shutdown\n"
        XCTAssertThrowsError(try SimctlListParser.parseText(text)) { error in
            guard case .unreadableLine(let number, let line, _)? = error as? SimctlListError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(number, 3)
            XCTAssertEqual(line, "    iPhone 15 90052AC6 Shutdown")
            XCTAssertTrue("\(error)".hasPrefix("line 3 of the simulator listing"))
        }
    }

    func testDeviceBeforeAnyRuntimeHeader() {
        let text = "== Devices ==\n    iPhone 15 (90052AC6-D47D-4B2A-840D-6B5B081260C6) (Shutdown)\n"
        XCTAssertThrowsError(try SimctlListParser.parseText(text)) {
            guard case .unreadableLine(2, _, _)? = $0 as? SimctlListError else { return XCTFail("unexpected \($0)") }
        }
    }

    func testTextThatIsNoListing() {
        let text = "xcrun: error: unable to find utility \"simctl\", not a developer tool or in PATH\n"
        XCTAssertThrowsError(try SimctlListParser.parseText(text)) {
            XCTAssertEqual(
                $0 as? SimctlListError,
                .notAListing(
                    firstLine: "xcrun: error: unable to find utility \"simctl\", not a developer tool or in PATH"))
        }
    }

    func testEmptyDevicesSectionIsNoSimulators() throws {
        XCTAssertEqual(try SimctlListParser.parseText("== Devices ==\n"), [])
    }
}

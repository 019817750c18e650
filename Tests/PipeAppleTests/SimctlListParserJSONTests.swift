import Foundation
import PipeApple
import PipeCore
import XCTest

final class SimctlListParserJSONTests: XCTestCase {
    func testXcode15DevicesWithRuntimeIdentifierKeysAndAnEmptyRuntime() throws {
        let simulators = try SimctlListParser.parseJSON(try Fixture.data("simctl/devices-xcode15.4.json"))
        XCTAssertEqual(
            simulators,
            [
                Simulator(
                    udid: "844FA4B6-7DD2-4AA4-9B0B-D539D3488815", name: "iPhone SE (3rd generation)",
                    runtimeIdentifier: "com.apple.CoreSimulator.SimRuntime.iOS-17-4", runtimeName: "iOS 17.4",
                    platform: "iOS", runtimeVersion: "17.4", state: "Shutdown",
                    deviceTypeIdentifier: "com.apple.CoreSimulator.SimDeviceType.iPhone-SE-3rd-generation"),
                Simulator(
                    udid: "13094867-A44C-4F41-8D5A-4C54E4365C82", name: "iPhone 15",
                    runtimeIdentifier: "com.apple.CoreSimulator.SimRuntime.iOS-17-4", runtimeName: "iOS 17.4",
                    platform: "iOS", runtimeVersion: "17.4", state: "Shutdown",
                    deviceTypeIdentifier: "com.apple.CoreSimulator.SimDeviceType.iPhone-15"),
            ])
    }

    func testXcode26UnavailableDeviceWithEscapedSlashesKeepsItsError() throws {
        let simulators = try SimctlListParser.parseJSON(try Fixture.data("simctl/devices-xcode26.1-unavailable.json"))
        let device = try XCTUnwrap(simulators.first)
        XCTAssertEqual(simulators.count, 1)
        XCTAssertEqual(device.name, "iPhone 17 Pro")
        XCTAssertFalse(device.isAvailable)
        XCTAssertEqual(device.availabilityError, "runtime profile not found using \"System\" match policy")
        XCTAssertEqual(device.runtimeName, "iOS 26.0")
        XCTAssertEqual(device.runtimeVersion, "26.0")
    }

    func testXcode12TvOSDevice() throws {
        let device = try XCTUnwrap(
            try SimctlListParser.parseJSON(try Fixture.data("simctl/devices-xcode12.json")).first)
        XCTAssertEqual(device.platform, "tvOS")
        XCTAssertEqual(device.runtimeName, "tvOS 14.2")
        XCTAssertFalse(device.isAvailable)
        XCTAssertEqual(device.availabilityError, "runtime profile not found")
    }

    func testXcode10_2HasBothAvailabilityFormsAndAnEmptyErrorWhenAvailable() throws {
        let simulators = try SimctlListParser.parseJSON(try Fixture.data("simctl/devices-xcode10.2.json"))
        XCTAssertEqual(simulators.map(\.name), ["iPhone 5s", "iPhone 6"])
        XCTAssertEqual(simulators.map(\.isAvailable), [true, false])
        XCTAssertEqual(simulators.map(\.availabilityError), [nil, "runtime profile not found"])
        XCTAssertEqual(simulators.map(\.runtimeName), ["iOS 12.0", "iOS 12.0"])
    }

    func testXcode10_1DisplayNameKeys() throws {
        let device = try XCTUnwrap(
            try SimctlListParser.parseJSON(try Fixture.data("simctl/devices-xcode10.1.json")).first)
        XCTAssertEqual(device.runtimeIdentifier, "iOS 12.0")
        XCTAssertEqual(device.platform, "iOS")
        XCTAssertEqual(device.runtimeVersion, "12.0")
        XCTAssertTrue(device.isAvailable)
    }

    func testXcode9DisplayNameKeysWithOnlyTheAvailabilityString() throws {
        let simulators = try SimctlListParser.parseJSON(try Fixture.data("simctl/devices-xcode9.4.json"))
        XCTAssertEqual(simulators.map(\.udid), ["TEST-PHONE-UDID", "TEST-WATCH-UDID"])
        XCTAssertEqual(simulators.map(\.runtimeName), ["iOS 11.4", "watchOS 4.3"])
        XCTAssertEqual(simulators.map(\.state), ["Booted", "Shutdown"])
        XCTAssertEqual(simulators.map(\.isAvailable), [true, true])
    }

    func testLegacyUnavailableStringWithoutIsAvailable() throws {
        // The unavailable form of `availability` (apple-formats.md 1.6, fastlane's legacy-availability fixture).
        let json = """
            { "devices" : { "iOS 11.4" : [ { "state" : "Shutdown",
              "availability" : "(unavailable, runtime profile not found)", "name" : "iPhone X", "udid" : "A-1" } ] } }
            """
        let device = try XCTUnwrap(try SimctlListParser.parseJSON(Data(json.utf8)).first)
        XCTAssertFalse(device.isAvailable)
        XCTAssertEqual(device.availabilityError, "runtime profile not found")
    }

    func testFullListingTakesNamesAndVersionsFromTheRuntimesArray() throws {
        let simulators = try SimctlListParser.parseJSON(try Fixture.data("simctl/list-full-xcode26-composite.json"))
        XCTAssertEqual(simulators.count, 3)
        // Two runtimes share `…iOS-18-0` (18.0 and 18.0.1): the newer available one names the devices.
        let onEighteen = simulators.filter { $0.runtimeIdentifier == "com.apple.CoreSimulator.SimRuntime.iOS-18-0" }
        XCTAssertEqual(onEighteen.map(\.name), ["iPhone SE (3rd generation)", "iPhone 15"])
        XCTAssertEqual(Set(onEighteen.map(\.runtimeVersion)), ["18.0.1"])
        XCTAssertEqual(Set(onEighteen.map(\.runtimeName)), ["iOS 18.0"])
        let unavailable = try XCTUnwrap(simulators.last)
        XCTAssertEqual(unavailable.runtimeVersion, "26.0.1")
        XCTAssertFalse(unavailable.isAvailable)
    }

    func testResultDoesNotDependOnKeyOrder() throws {
        func listing(_ keys: [String]) -> Data {
            let body = keys.map { key in
                "\"com.apple.CoreSimulator.SimRuntime.\(key)\" : [ { \"udid\" : \"\(key)-U\", \"name\" : \"D\", "
                    + "\"state\" : \"Shutdown\", \"isAvailable\" : true } ]"
            }
            return Data("{ \"devices\" : { \(body.joined(separator: ", ")) } }".utf8)
        }
        let forward = try SimctlListParser.parseJSON(listing(["iOS-17-9", "iOS-17-10", "tvOS-17-0", "iOS-9-3"]))
        let backward = try SimctlListParser.parseJSON(listing(["iOS-9-3", "tvOS-17-0", "iOS-17-10", "iOS-17-9"]))
        XCTAssertEqual(forward, backward)
        XCTAssertEqual(forward.map(\.runtimeVersion), ["9.3", "17.9", "17.10", "17.0"])
    }

    func testVisionOSAndUnknownRuntimeKeys() throws {
        let json = """
            { "devices" : {
              "com.apple.CoreSimulator.SimRuntime.xrOS-1-2" : [ { "udid" : "V", "name" : "Apple Vision Pro", "state" : "Shutdown", "isAvailable" : true } ],
              "com.apple.CoreSimulator.SimRuntime.futureOS" : [ { "udid" : "F", "name" : "Future", "state" : "Shutdown", "isAvailable" : true } ]
            } }
            """
        let simulators = try SimctlListParser.parseJSON(Data(json.utf8))
        let vision = try XCTUnwrap(simulators.first { $0.udid == "V" })
        XCTAssertEqual(vision.platform, "visionOS")
        XCTAssertEqual(vision.runtimeName, "visionOS 1.2")
        let future = try XCTUnwrap(simulators.first { $0.udid == "F" })
        XCTAssertEqual(future.runtimeVersion, "")
        XCTAssertEqual(future.runtimeName, "futureOS")
    }

    func testRuntimesListingAloneIsRejectedWithTheKeysItHas() throws {
        XCTAssertThrowsError(try SimctlListParser.parseJSON(try Fixture.data("simctl/runtimes-xcode26.json"))) {
            XCTAssertEqual($0 as? SimctlListError, .missingDevices(topLevelKeys: ["runtimes"]))
            XCTAssertTrue("\($0)".contains("xcrun simctl list devices"))
        }
    }

    func testXcrunErrorTextIsNotJSON() {
        let output = Data("xcrun: error: unable to find utility \"simctl\", not a developer tool or in PATH\n".utf8)
        XCTAssertThrowsError(try SimctlListParser.parseJSON(output)) { error in
            guard case .notJSON(let firstLine, _)? = error as? SimctlListError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(
                firstLine, "xcrun: error: unable to find utility \"simctl\", not a developer tool or in PATH")
            XCTAssertTrue("\(error)".contains("xcode-select -p"))
        }
    }

    func testTruncatedJSONIsATypedError() throws {
        let full = try Fixture.data("simctl/devices-xcode15.4.json")
        XCTAssertThrowsError(try SimctlListParser.parseJSON(full.prefix(full.count / 2))) {
            guard case .notJSON? = $0 as? SimctlListError else { return XCTFail("unexpected \($0)") }
        }
    }

    /// Carthage's real listings: Xcode 10.1 betas wrote `"isAvailable" : "YES"`, and one listing puts a space
    /// before `(unavailable, …)`.
    func testYesNoStringsAndASpaceBeforeTheAvailability() throws {
        let json = """
            { "devices" : { "iOS 12.0" : [
              { "state" : "Shutdown", "isAvailable" : "YES", "name" : "iPhone 5s", "udid" : "A52BF797" },
              { "state" : "Shutdown", "isAvailable" : "NO", "name" : "iPhone 6", "udid" : "ABDA7BC1" },
              { "state" : "Shutdown", "availability" : " (unavailable, device type not supported by runtime)",
                "name" : "Apple Watch - 38mm", "udid" : "893B7FA1" } ] } }
            """
        let simulators = try SimctlListParser.parseJSON(Data(json.utf8))
        XCTAssertEqual(simulators.map(\.isAvailable), [true, false, false])
        XCTAssertEqual(simulators[2].availabilityError, "device type not supported by runtime")
    }

    func testWrongTypeNamesThePathOfTheValue() {
        let json = """
            { "devices" : { "com.apple.CoreSimulator.SimRuntime.iOS-17-5" : [
              { "udid" : "A", "name" : "iPhone 15", "state" : "Shutdown", "isAvailable" : "maybe" } ] } }
            """
        XCTAssertThrowsError(try SimctlListParser.parseJSON(Data(json.utf8))) { error in
            guard case .invalidJSON(let path, let detail)? = error as? SimctlListError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, "devices[\"com.apple.CoreSimulator.SimRuntime.iOS-17-5\"][0].isAvailable")
            XCTAssertTrue(detail.contains(#"true, false, "YES" or "NO""#), detail)
        }
    }

    func testMissingUDIDIsNamed() {
        let json = #"{ "devices" : { "iOS 11.4" : [ { "name" : "iPhone 5s", "state" : "Booted" } ] } }"#
        XCTAssertThrowsError(try SimctlListParser.parseJSON(Data(json.utf8))) { error in
            guard case .invalidJSON(let path, let detail)? = error as? SimctlListError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, "devices[\"iOS 11.4\"][0]")
            XCTAssertTrue(detail.contains("\"udid\""), detail)
        }
    }

    func testEmptyOutputAndNonObjectTopLevel() {
        XCTAssertThrowsError(try SimctlListParser.parseJSON(Data(" \n".utf8))) {
            XCTAssertEqual($0 as? SimctlListError, .emptyOutput)
        }
        XCTAssertThrowsError(try SimctlListParser.parseJSON(Data("[1, 2]".utf8))) {
            guard case .notJSON? = $0 as? SimctlListError else { return XCTFail("unexpected \($0)") }
        }
    }

    func testParseChoosesJSONOrTextByTheFirstCharacter() throws {
        XCTAssertEqual(try SimctlListParser.parse(try Fixture.data("simctl/devices-xcode15.4.json")).count, 2)
        XCTAssertEqual(try SimctlListParser.parse(try Fixture.data("simctl/text-xcode15.4.txt")).count, 6)
        XCTAssertThrowsError(try SimctlListParser.parse(Data())) {
            XCTAssertEqual($0 as? SimctlListError, .emptyOutput)
        }
    }
}

import Foundation
import PipeApple
import PipeCore
import XCTest

/// Real `xcrun simctl list -j` / `list devices -j` / `list runtimes -j` output of Xcode 9.4 to 26 through the code
/// `pipe sims` and a run's simulator choice use (`SimctlListParser`, `SimulatorSelector`, `SimulatorCreation`).
/// `real-simctl/` holds whole files as found; `simctl/` the samples of `apple-formats.md` (trimmed, see the README).
final class RealSimctlJSONTests: XCTestCase {
    struct Listing {
        var file: String
        var xcode: String
        /// Devices and available devices, counted by reading the file.
        var devices: Int
        var available: Int
        /// The runtime version `iOS, latest` picks, or `nil` when no iOS simulator is available.
        var latestIOS: String?
    }

    static let listings: [Listing] = [
        .init(file: "simctl/devices-xcode9.4.json", xcode: "9.4", devices: 2, available: 2, latestIOS: "11.4"),
        .init(
            file: "real-simctl/carthage-xcode10.0-availables.json", xcode: "10.0", devices: 6, available: 5,
            latestIOS: "12.0"),
        .init(
            file: "real-simctl/carthage-xcode10.0-unavailable.json", xcode: "10.0", devices: 2, available: 0,
            latestIOS: nil),
        .init(
            file: "real-simctl/carthage-xcode10.1-beta.json", xcode: "10.1 beta", devices: 6, available: 5,
            latestIOS: "12.0"),
        .init(file: "real-simctl/carthage-xcode10.1.json", xcode: "10.1", devices: 6, available: 3, latestIOS: "12.0"),
        .init(file: "simctl/devices-xcode10.1.json", xcode: "10.1", devices: 1, available: 1, latestIOS: "12.0"),
        .init(
            file: "real-simctl/carthage-xcode10.2-beta.json", xcode: "10.2 beta", devices: 6, available: 3,
            latestIOS: "12.0"),
        .init(
            file: "real-simctl/carthage-xcode10.2-unavailable-latest.json", xcode: "10.2", devices: 66, available: 33,
            latestIOS: "12.1"),
        .init(file: "simctl/devices-xcode12.json", xcode: "12", devices: 1, available: 0, latestIOS: nil),
        .init(
            file: "real-simctl/go-xcode-xcode14-beta-list.json", xcode: "14 beta", devices: 71, available: 41,
            latestIOS: "16.0"),
        .init(file: "simctl/devices-xcode15.4.json", xcode: "15.4", devices: 2, available: 2, latestIOS: "17.4"),
        .init(
            file: "simctl/devices-xcode26.1-unavailable.json", xcode: "26.1", devices: 1, available: 0, latestIOS: nil),
    ]

    func testEveryListingReadsAsItsDevicesAndTheChoiceIsTheLatestAvailable() throws {
        XCTAssertGreaterThanOrEqual(Set(Self.listings.map(\.xcode)).count, 8, "the JSON of at least 8 Xcode versions")
        for listing in Self.listings {
            let data = try Fixture.data(listing.file)
            let simulators = try SimctlListParser.parse(data)
            XCTAssertEqual(
                "\(simulators.count) \(simulators.filter(\.isAvailable).count)",
                "\(listing.devices) \(listing.available)", listing.file)
            XCTAssertEqual(try SimctlListParser.parse(data), simulators, "\(listing.file): a second read differs")
            for simulator in simulators {
                XCTAssertTrue(String(decoding: data, as: UTF8.self).contains(simulator.udid), listing.file)
                if simulator.isAvailable { XCTAssertNil(simulator.availabilityError, listing.file) }
            }
            let criteria = SimulatorCriteria(platform: "iOS", runtime: "latest")
            if let version = listing.latestIOS {
                let choice = try SimulatorSelector.choose(from: simulators, criteria: criteria)
                XCTAssertEqual(choice.simulator.runtimeVersion, version, listing.file)
                XCTAssertTrue(choice.simulator.isAvailable, listing.file)
                XCTAssertFalse(choice.reason.isEmpty, listing.file)
            } else {
                XCTAssertThrowsError(try SimulatorSelector.choose(from: simulators, criteria: criteria), listing.file) {
                    XCTAssertTrue("\($0)".contains("iOS"), "\(listing.file): \($0)")
                }
            }
        }
    }

    /// The full `simctl list -j` is what `simulator.create` plans from: device types and runtimes.
    func testAFullListingPlansASimulatorToCreate() throws {
        let listing = try Fixture.data("real-simctl/go-xcode-xcode14-beta-list.json")
        let plan = try SimulatorCreation.plan(
            for: SimulatorCriteria(platform: "iOS", deviceName: "iPhone 13", runtime: "latest", create: true),
            listing: listing)
        XCTAssertEqual(plan.runtimeName, "iOS 16.0")
        XCTAssertEqual(plan.deviceTypeIdentifier, "com.apple.CoreSimulator.SimDeviceType.iPhone-13")
        let older = try SimulatorCreation.plan(
            for: SimulatorCriteria(platform: "iOS", deviceName: "iPhone 8", runtime: "13", create: true),
            listing: listing)
        XCTAssertEqual(older.runtimeName, "iOS 13.7")
    }

    /// `list runtimes -j` alone names no devices: read as a device listing it is refused, saying what it has.
    func testARuntimesListingIsNotADeviceListing() throws {
        for file in ["real-simctl/fastlane-xcode15.2-runtimes.json", "simctl/runtimes-xcode26.json"] {
            XCTAssertThrowsError(try SimctlListParser.parse(try Fixture.data(file)), file) { error in
                XCTAssertEqual(error as? SimctlListError, .missingDevices(topLevelKeys: ["runtimes"]), file)
                XCTAssertTrue("\(error)".contains("runtimes"), "\(file): \(error)")
            }
        }
    }
}

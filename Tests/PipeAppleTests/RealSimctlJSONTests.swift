import Foundation
import PipeApple
import PipeCore
import XCTest

/// Real `xcrun simctl list -j` / `list devices -j` / `list runtimes -j` output of Xcode 9.4 to 26 through the code
/// `pipe sims` and a run's simulator choice use (`SimctlListParser`, `SimulatorSelector`, `SimulatorCreation`).
/// `real-simctl/` holds whole files as found; `simctl/` the samples of `apple-formats.md` (trimmed, see the README).
final class RealSimctlJSONTests: XCTestCase {
    /// Counted by reading the file.
    struct Listing {
        var file: String
        var xcode: String
        var devices: Int
        var available: Int
        var latestIOS: String?

        init(_ file: String, _ xcode: String, _ devices: Int, _ available: Int, _ latestIOS: String?) {
            (self.file, self.xcode, self.devices, self.available, self.latestIOS) =
                (file, xcode, devices, available, latestIOS)
        }
    }

    /// File, Xcode version, devices and available devices, and the runtime `iOS, latest` picks (`nil`: none).
    static let listings: [Listing] = [
        .init("simctl/devices-xcode9.4.json", "9.4", 2, 2, "11.4"),
        .init("real-simctl/carthage-xcode10.0-availables.json", "10.0", 6, 5, "12.0"),
        .init("real-simctl/carthage-xcode10.0-unavailable.json", "10.0", 2, 0, nil),
        .init("real-simctl/carthage-xcode10.1-beta.json", "10.1 beta", 6, 5, "12.0"),
        .init("real-simctl/carthage-xcode10.1.json", "10.1", 6, 3, "12.0"),
        .init("simctl/devices-xcode10.1.json", "10.1", 1, 1, "12.0"),
        .init("real-simctl/carthage-xcode10.2-beta.json", "10.2 beta", 6, 3, "12.0"),
        .init("real-simctl/carthage-xcode10.2-unavailable-latest.json", "10.2", 66, 33, "12.1"),
        .init("simctl/devices-xcode12.json", "12", 1, 0, nil),
        .init("real-simctl/openbakery-xcode12.json", "12.4", 114, 49, "14.4"),
        .init("real-simctl/openbakery-xcode13.json", "13.0", 144, 35, "15.0"),
        .init("real-simctl/go-xcode-xcode14-beta-list.json", "14 beta", 71, 41, "16.0"),
        .init("real-simctl/openbakery-xcode14.json", "14.3", 21, 10, "16.4"),
        .init("real-simctl/openbakery-xcode15.json", "15 RC", 84, 23, "17.0"),
        .init("simctl/devices-xcode15.4.json", "15.4", 2, 2, "17.4"),
        .init("real-simctl/openbakery-xcode16.json", "16 RC", 47, 32, "18.0"),
        .init("simctl/devices-xcode26.1-unavailable.json", "26.1", 1, 0, nil),
    ]

    func testEveryListingReadsAsItsDevicesAndTheChoiceIsTheLatestAvailable() throws {
        let realVersions = Set(Self.listings.filter { $0.file.hasPrefix("real-simctl/") }.map(\.xcode))
        XCTAssertGreaterThanOrEqual(realVersions.count, 8, "real JSON listings of at least 8 Xcode versions")
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

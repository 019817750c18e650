import Foundation
import PipeCore
import XCTest

@testable import PipeApple

/// Against `simctl list -j` of a real Xcode (`Fixtures/simctl/list-full-xcode26-composite.json`: one device type,
/// iPhone 11; runtimes iOS 17.0, 18.0, 18.0.1 and 26.0.1).
final class SimulatorCreationTests: XCTestCase {
    private func listing() throws -> Data { try Fixture.data("simctl/list-full-xcode26-composite.json") }

    func testPlansTheNamedDeviceTypeOnTheExactRuntime() throws {
        let plan = try SimulatorCreation.plan(
            for: SimulatorCriteria(deviceName: "iPhone 11", runtime: "17.0", create: true), listing: listing())
        XCTAssertEqual(plan.deviceTypeIdentifier, "com.apple.CoreSimulator.SimDeviceType.iPhone-11")
        XCTAssertEqual(plan.runtimeIdentifier, "com.apple.CoreSimulator.SimRuntime.iOS-17-0")
        XCTAssertEqual(plan.name, "Pipe iPhone 11 (iOS 17.0)")
        XCTAssertEqual(
            plan.command,
            "xcrun simctl create 'Pipe iPhone 11 (iOS 17.0)' com.apple.CoreSimulator.SimDeviceType.iPhone-11 "
                + "com.apple.CoreSimulator.SimRuntime.iOS-17-0")
    }

    func testLatestAndAtLeastTakeTheNewestRuntimeThatFits() throws {
        let latest = try SimulatorCreation.plan(
            for: SimulatorCriteria(deviceName: "iPhone 11", runtime: "latest"), listing: listing())
        XCTAssertEqual(latest.runtimeIdentifier, "com.apple.CoreSimulator.SimRuntime.iOS-26-0")
        let atLeast = try SimulatorCreation.plan(
            for: SimulatorCriteria(deviceName: "iPhone 11", runtime: ">= 18"), listing: listing())
        XCTAssertEqual(atLeast.runtimeName, "iOS 26.0")
    }

    func testAnUnknownDeviceTypeOrRuntimeSaysWhatTheHostHas() throws {
        XCTAssertThrowsError(
            try SimulatorCreation.plan(for: SimulatorCriteria(deviceName: "iPhone 15"), listing: listing())
        ) { error in
            XCTAssertEqual(
                "\(error)", "no device type 'iPhone 15' on the host to create a simulator from; it has iPhone 11")
        }
        XCTAssertThrowsError(
            try SimulatorCreation.plan(
                for: SimulatorCriteria(deviceName: "iPhone 11", runtime: "17.5"), listing: listing())
        ) { error in
            XCTAssertTrue("\(error)".contains("no available iOS runtime 17.5"), "\(error)")
            XCTAssertTrue("\(error)".contains("it has iOS 17.0, iOS 18.0"), "\(error)")
        }
        XCTAssertThrowsError(try SimulatorCreation.plan(for: SimulatorCriteria(), listing: listing()))
    }

    /// The Xcode 10.1 betas wrote `"isAvailable" : "YES"` / `"NO"` (as the device listings of Carthage's fixtures).
    func testYesNoAvailabilityOfARuntime() throws {
        let listing = """
            { "devicetypes" : [ { "identifier" : "com.apple.CoreSimulator.SimDeviceType.iPhone-XS", "name" : "iPhone XS" } ],
              "runtimes" : [
                { "identifier" : "com.apple.CoreSimulator.SimRuntime.iOS-12-1", "name" : "iOS 12.1", "version" : "12.1",
                  "isAvailable" : "NO" },
                { "identifier" : "com.apple.CoreSimulator.SimRuntime.iOS-12-0", "name" : "iOS 12.0", "version" : "12.0",
                  "isAvailable" : "YES" } ] }
            """
        let plan = try SimulatorCreation.plan(
            for: SimulatorCriteria(deviceName: "iPhone XS", runtime: "latest"), listing: Data(listing.utf8))
        XCTAssertEqual(plan.runtimeName, "iOS 12.0")
    }

    func testReadsTheCreatedUDIDAndRefusesAFailure() throws {
        let udid = "6F2A4D39-83A4-4C4B-9D61-0E5E8A0C9A11"
        XCTAssertEqual(
            try SimulatorCreation.readCreated(
                CapturedOutput(stdout: Data("\(udid)\n".utf8), stderr: Data(), exit: .exited(0))), udid)
        XCTAssertThrowsError(
            try SimulatorCreation.readCreated(
                CapturedOutput(stdout: Data(), stderr: Data("Invalid device type: x\n".utf8), exit: .exited(148)))
        ) { error in
            XCTAssertEqual("\(error)", "`simctl create` ended with 148: Invalid device type: x")
        }
    }

    func testADeviceAlreadyGoneIsNotADeleteFailure() {
        XCTAssertEqual(SimulatorCreation.deleteCommand(udid: "A-B"), "xcrun simctl delete A-B")
        XCTAssertTrue(
            SimulatorCreation.isAlreadyGone(
                CapturedOutput(stdout: Data(), stderr: Data("Invalid device: A-B\n".utf8), exit: .exited(148))))
        XCTAssertFalse(
            SimulatorCreation.isAlreadyGone(CapturedOutput(stdout: Data(), stderr: Data(), exit: .exited(0))))
    }
}

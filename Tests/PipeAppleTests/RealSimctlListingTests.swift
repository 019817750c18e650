import Foundation
import PipeApple
import PipeCore
import XCTest

/// Real `xcrun simctl list devices` text listings of Xcode 7 to 15 (fastlane's fixtures, MIT; sources in
/// `Fixtures/README.md`), read by the same parser a run uses.
final class RealSimctlListingTests: XCTestCase {
    /// File, then the devices and the available devices counted by reading it.
    static let expected: [(file: String, devices: Int, available: Int)] = [
        ("fastlane-xcode7.txt", 12, 9), ("fastlane-xcode8.txt", 35, 15), ("fastlane-xcode9.txt", 41, 20),
        ("fastlane-xcode10-booted-unavailable.txt", 6, 3), ("fastlane-xcode11.txt", 162, 36),
        ("fastlane-xcode14.txt", 80, 68), ("fastlane-xcode15.txt", 80, 69),
    ]

    /// Listings the parser does not read yet, and why: when one reads, move it to `expected`.
    static let knownGaps: [(file: String, why: String)] = []

    func testTheKnownGapsAreStillGaps() throws {
        for gap in Self.knownGaps {
            let text = try Fixture.text("real-simctl/\(gap.file)")
            XCTAssertThrowsError(try SimctlListParser.parse(Data(text.utf8)), "\(gap.file) reads now: \(gap.why)")
        }
    }

    func testEveryListingReadsAsItsDevices() throws {
        for entry in Self.expected {
            let text = try Fixture.text("real-simctl/\(entry.file)")
            let simulators: [Simulator]
            do {
                simulators = try SimctlListParser.parse(Data(text.utf8))
            } catch {
                XCTFail("\(entry.file): \(error)")
                continue
            }
            let available = simulators.filter(\.isAvailable)
            XCTAssertEqual(
                "\(simulators.count) \(available.count)", "\(entry.devices) \(entry.available)", entry.file)
            XCTAssertEqual(
                try SimctlListParser.parse(Data(text.utf8)), simulators, "\(entry.file): a second read differs")
            for simulator in simulators {
                XCTAssertTrue(text.contains("(\(simulator.udid))"), "\(entry.file): \(simulator.udid)")
                XCTAssertFalse(simulator.name.isEmpty, entry.file)
            }
        }
    }
}

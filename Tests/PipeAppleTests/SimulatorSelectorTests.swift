import Foundation
import PipeApple
import PipeCore
import XCTest

final class SimulatorSelectorTests: XCTestCase {
    private func xcode26() throws -> [Simulator] {
        try SimctlListParser.parseText(try Fixture.text("simctl/text-xcode26.3.txt"))
    }

    private func simulator(
        _ udid: String, _ name: String = "iPhone 15", version: String = "17.5", state: String = "Shutdown",
        available: Bool = true
    ) -> Simulator {
        Simulator(
            udid: udid, name: name,
            runtimeIdentifier: "com.apple.CoreSimulator.SimRuntime.iOS-"
                + version.replacingOccurrences(of: ".", with: "-"),
            runtimeName: "iOS \(version)", platform: "iOS", runtimeVersion: version, state: state,
            isAvailable: available)
    }

    func testLatestRuntimeForANamedDeviceWithTheReasonSpelledOut() throws {
        let choice = try SimulatorSelector.choose(
            from: try xcode26(), criteria: SimulatorCriteria(platform: "iOS", deviceName: "iPhone 17 Pro"))
        XCTAssertEqual(choice.simulator.udid, "FCFE9A4C-A3BA-4AD4-B160-2679BFE19258")
        XCTAssertEqual(
            choice.reason,
            "iPhone 17 Pro on iOS 26.3 (FCFE9A4C-A3BA-4AD4-B160-2679BFE19258), chosen because it matches platform "
                + "iOS, device 'iPhone 17 Pro' and runtime 'latest' = 26.3")
    }

    func testBootedBeatsShutdownThenLowestUDID() throws {
        let booted = [
            simulator("0A000000-0000-0000-0000-000000000000"),
            simulator("FF000000-0000-0000-0000-000000000000", state: "Booted"),
            simulator("1B000000-0000-0000-0000-000000000000"),
        ]
        let choice = try SimulatorSelector.choose(from: booted, criteria: SimulatorCriteria(deviceName: "iPhone 15"))
        XCTAssertEqual(choice.simulator.udid, "FF000000-0000-0000-0000-000000000000")
        XCTAssertTrue(choice.reason.hasSuffix("; 3 simulators matched: the booted one preferred"), choice.reason)

        let noneBooted = [
            simulator("1B000000-0000-0000-0000-000000000000"), simulator("0A000000-0000-0000-0000-000000000000"),
        ]
        let lowest = try SimulatorSelector.choose(
            from: noneBooted, criteria: SimulatorCriteria(deviceName: "iPhone 15"))
        XCTAssertEqual(lowest.simulator.udid, "0A000000-0000-0000-0000-000000000000")
        XCTAssertTrue(lowest.reason.hasSuffix("none booted, so the lowest UDID"), lowest.reason)
    }

    func testSameChoiceWhateverTheListingOrder() throws {
        // Two devices share the name `Apple Vision Pro` in the Xcode 15.4 listing.
        let listing = try SimctlListParser.parseText(try Fixture.text("simctl/text-xcode15.4.txt"))
        let criteria = SimulatorCriteria(platform: "visionOS", deviceName: "Apple Vision Pro", runtime: "latest")
        var generator = SystemRandomNumberGenerator()
        let chosen = try (0..<40).map { _ in
            try SimulatorSelector.choose(from: listing.shuffled(using: &generator), criteria: criteria).simulator.udid
        }
        XCTAssertEqual(Set(chosen), ["D006BACD-AC30-47B2-8257-39F20D1502D0"])
    }

    func testExactNameFirstAndNeverAPartialMatch() throws {
        let listing = [
            simulator("A1", "iPhone 15 Pro", version: "18.0"), simulator("B2", "iPhone 15", version: "17.5"),
        ]
        let exact = try SimulatorSelector.choose(from: listing, criteria: SimulatorCriteria(deviceName: "iPhone 15"))
        XCTAssertEqual(exact.simulator.udid, "B2")
        let ignoringCase = try SimulatorSelector.choose(
            from: listing, criteria: SimulatorCriteria(deviceName: "iphone  15"))
        XCTAssertEqual(ignoringCase.simulator.udid, "B2")
        XCTAssertTrue(ignoringCase.reason.contains("device 'iphone  15' (ignoring case)"), ignoringCase.reason)
    }

    func testRuntimeForms() throws {
        let listing = [
            simulator("A", version: "17.4"), simulator("B", version: "17.5"), simulator("C", version: "18.0.1"),
            simulator("D", version: "16.4"),
        ]
        func pick(_ runtime: String?) throws -> String {
            try SimulatorSelector.choose(
                from: listing, criteria: SimulatorCriteria(deviceName: "iPhone 15", runtime: runtime)
            )
            .simulator.udid
        }
        XCTAssertEqual(try pick(nil), "C")
        XCTAssertEqual(try pick("latest"), "C")
        XCTAssertEqual(try pick("iOS latest"), "C")
        XCTAssertEqual(try pick("17.5"), "B")
        XCTAssertEqual(try pick("iOS 17.5"), "B")
        XCTAssertEqual(try pick("17"), "B", "a major version takes its newest minor")
        XCTAssertEqual(try pick("18.0"), "C", "18.0 accepts the patch 18.0.1")
        XCTAssertEqual(try pick(">=17"), "C")
        XCTAssertEqual(try pick("iOS >= 16.4"), "C")
    }

    func testVersionsCompareNumerically() throws {
        let listing = [simulator("NINE", version: "17.9"), simulator("TEN", version: "17.10")]
        let choice = try SimulatorSelector.choose(from: listing, criteria: SimulatorCriteria(deviceName: "iPhone 15"))
        XCTAssertEqual(choice.simulator.udid, "TEN")
    }

    func testUnavailableSimulatorsAreNeverChosen() throws {
        let listing = try SimctlListParser.parseText(try Fixture.text("simctl/text-xcode10-unavailable.txt"))
        let choice = try SimulatorSelector.choose(from: listing, criteria: SimulatorCriteria(deviceName: "iPhone 5s"))
        XCTAssertEqual(choice.simulator.udid, "238C6D64-8720-4BFF-9DE9-FFBB9A1375D4")
    }

    func testUDIDOverrideWinsOverTheOtherCriteria() throws {
        let choice = try SimulatorSelector.choose(
            from: try xcode26(),
            criteria: SimulatorCriteria(deviceName: "iPhone 17 Pro", udid: "dc2fe43f-e8f6-47a4-938e-1815a25b2156"),
            udidSource: "SIM_UDID")
        XCTAssertEqual(choice.simulator.name, "iPhone 16")
        XCTAssertTrue(choice.reason.hasSuffix("chosen because SIM_UDID names its UDID"), choice.reason)
    }

    func testUnknownUDIDListsWhatTheHostHasGroupedByRuntime() throws {
        XCTAssertThrowsError(
            try SimulatorSelector.choose(
                from: try xcode26(), criteria: SimulatorCriteria(udid: "00000000-DEAD-BEEF-0000-000000000000"),
                udidSource: "SIM_UDID")
        ) { error in
            let selection = error as? SimulatorSelectionError
            XCTAssertEqual(
                selection?.kind, .udidNotFound(udid: "00000000-DEAD-BEEF-0000-000000000000", source: "SIM_UDID"))
            XCTAssertEqual(selection?.outcome, .hostConfig)
            XCTAssertEqual(
                "\(error)",
                """
                SIM_UDID names the simulator 00000000-DEAD-BEEF-0000-000000000000, which this host does not have.
                The host has 4 available simulators:
                  iOS 18.5:
                    iPhone 16  DC2FE43F-E8F6-47A4-938E-1815A25B2156  Shutdown
                  iOS 26.3:
                    iPad (A16)  21D822CC-6844-4115-8426-8CE7F0D5F3F6  Shutdown
                    iPad Pro 13-inch (M5)  17683048-DF6F-4AE9-B16D-757C1B6C4AE5  Shutdown
                    iPhone 17 Pro  FCFE9A4C-A3BA-4AD4-B160-2679BFE19258  Booted
                Use one of the UDIDs above, or remove the UDID to let Pipe choose by device name and runtime.
                """)
        }
    }

    func testUDIDOfAnUnavailableSimulator() throws {
        XCTAssertThrowsError(
            try SimulatorSelector.choose(
                from: try xcode26(), criteria: SimulatorCriteria(udid: "7B3C4928-9E4F-4872-B950-3BFE54CEDB4B"),
                udidSource: "--udid")
        ) { error in
            XCTAssertEqual(
                (error as? SimulatorSelectionError)?.kind,
                .udidUnavailable(
                    udid: "7B3C4928-9E4F-4872-B950-3BFE54CEDB4B", source: "--udid",
                    reason: "runtime profile not found using \"System\" match policy"))
            XCTAssertTrue("\(error)".contains("lists as unavailable"))
        }
    }

    func testNoDeviceOfThatNameSuggestsTheNearest() throws {
        XCTAssertThrowsError(
            try SimulatorSelector.choose(from: try xcode26(), criteria: SimulatorCriteria(deviceName: "iPhone 17 Pr"))
        ) { error in
            let message = "\(error)"
            XCTAssertTrue(
                message.hasPrefix(
                    "no available simulator matches platform iOS, device 'iPhone 17 Pr', runtime 'latest': no iOS "
                        + "simulator is named 'iPhone 17 Pr'. Did you mean 'iPhone 17 Pro'?"), message)
            XCTAssertTrue(message.contains("  iOS 18.5:\n    iPhone 16"), message)
            XCTAssertTrue(message.hasSuffix("or pass --udid (or SIM_UDID) with one of the UDIDs above."), message)
        }
    }

    func testDeviceNotOnTheRequestedRuntime() throws {
        XCTAssertThrowsError(
            try SimulatorSelector.choose(
                from: try xcode26(), criteria: SimulatorCriteria(deviceName: "iPhone 16", runtime: ">=26"))
        ) { error in
            guard case .noMatch(let detail, _)? = (error as? SimulatorSelectionError)?.kind else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(detail, "device 'iPhone 16' is only on iOS 18.5, not on runtime '>=26'")
        }
    }

    func testPlatformTheHostDoesNotHave() throws {
        XCTAssertThrowsError(
            try SimulatorSelector.choose(from: try xcode26(), criteria: SimulatorCriteria(platform: "tvOS"))
        ) {
            guard case .noMatch(let detail, _)? = ($0 as? SimulatorSelectionError)?.kind else {
                return XCTFail("unexpected \($0)")
            }
            XCTAssertEqual(detail, "the host has no available tvOS simulators (only iOS)")
        }
    }

    func testBadRuntimeTextsAreRejected() throws {
        XCTAssertThrowsError(
            try SimulatorSelector.choose(from: try xcode26(), criteria: SimulatorCriteria(runtime: "seventeen"))
        ) {
            XCTAssertEqual(($0 as? SimulatorSelectionError)?.kind, .invalidRuntime("seventeen"))
        }
        XCTAssertThrowsError(
            try SimulatorSelector.choose(from: try xcode26(), criteria: SimulatorCriteria(runtime: "tvOS 17.0"))
        ) {
            XCTAssertEqual(
                ($0 as? SimulatorSelectionError)?.kind, .runtimeForOtherPlatform(runtime: "tvOS 17.0", platform: "iOS"))
        }
        XCTAssertThrowsError(try RuntimeRequirement.parse(">=", platform: "iOS"))
    }

    func testEmptyHostSaysHowToGetASimulator() {
        XCTAssertThrowsError(try SimulatorSelector.choose(from: [], criteria: SimulatorCriteria())) {
            XCTAssertTrue("\($0)".contains("The host has no available simulators"), "\($0)")
        }
    }
}

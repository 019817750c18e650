import Foundation
import PipeTestSupport
import XCTest

/// `pipe sims list` over a pool of three emulated Macs with different runtimes and simulators.
final class HostsSimsListTests: HostsEndToEndTests {
    func testEverySimulatorByHostAndRuntimeWithWhyUnavailableOnesCannotBeUsed() throws {
        let list = try project.pipe(["sims", "list"])
        XCTAssertEqual(list.exitCode, 0, list.combined)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first?.split(separator: " ", omittingEmptySubsequences: true).first, "HOST")
        // 9 + 5 + 4 simulators, hosts in file order, runtimes in version order within a host.
        XCTAssertEqual(lines.count, 1 + 18, list.stdout)
        let hostsInOrder = lines.dropFirst().map { String($0.prefix(5)) }
        XCTAssertEqual(
            hostsInOrder,
            Array(repeating: "mac-1", count: 9) + Array(repeating: "mac-2", count: 5)
                + Array(repeating: "mac-3", count: 4))
        func line(_ udid: String) -> String { lines.first { $0.contains(udid) } ?? "" }
        assertContains(
            line("B47A0748-7A6B-4C47-837E-87FA975D958D"),
            ["mac-1", "iOS 16.4", "iPhone 14", "no: runtime profile not found using \"System\" match policy"])
        assertContains(
            line("4B4E1C3A-6B1B-4E0E-9E0B-2C7D6C1F2A05"),
            ["mac-2", "iOS 17.5", "iPhone 16", "no: device type not supported by runtime"])
        assertContains(
            line("9C1E5F0A-3D2B-4C8E-A7F6-1B2C3D4E5F04"),
            ["mac-3", "iOS 18.2", "iPhone 16", "no: The iOS 18.2 simulator runtime is not available."])
        assertContains(line("4B4E1C3A-6B1B-4E0E-9E0B-2C7D6C1F2A04"), ["mac-2", "iPhone 15 Pro", "Booted", "yes"])
        XCTAssertTrue(line("90052AC6-D47D-4B2A-840D-6B5B081260C6").hasSuffix("Shutdown  yes"))

        let sims = try XCTUnwrap(try json(["sims", "list", "--host", "mac-3", "--json"]) as? [[String: Any]])
        XCTAssertEqual(Set(sims.compactMap { $0["host"] as? String }), ["mac-3"])
        XCTAssertEqual(sims.map { $0["runtime"] as? String }, ["iOS 18.2", "iOS 18.4", "iOS 18.4", "iOS 18.4"])
        XCTAssertEqual(sims.map { $0["available"] as? Bool }, [false, true, true, true])
        XCTAssertEqual(sims[0]["unavailableReason"] as? String, "The iOS 18.2 simulator runtime is not available.")
        XCTAssertTrue(sims[1]["unavailableReason"] is NSNull)
        XCTAssertEqual(sims[2]["name"] as? String, "iPhone 16 Pro Max")
        XCTAssertEqual(sims[2]["deviceType"] as? String, "com.apple.CoreSimulator.SimDeviceType.iPhone-16-Pro-Max")
        XCTAssertEqual(sims[2]["runtimeIdentifier"] as? String, "com.apple.CoreSimulator.SimRuntime.iOS-18-4")
        XCTAssertTrue(sims[2]["leasedBy"] is NSNull)
    }

    func testAHostThatIsDownFailsTheListingWhileTheOthersAreStillListed() throws {
        stop("mac-1")
        let list = try project.pipe(["sims", "list", "--host", "mac-1", "--host", "mac-2"])
        XCTAssertEqual(list.exitCode, 3, list.combined)
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 1 + 5, list.stdout)
        XCTAssertFalse(list.stdout.contains("mac-1"), list.stdout)
        assertContains(list.stderr, ["error: host mac-1: cannot connect to 127.0.0.1:\(host("mac-1").port)"])

        let unknown = try project.pipe(["sims", "list", "--host", "mac-4"])
        XCTAssertEqual(unknown.exitCode, 2, unknown.combined)
        assertContains(unknown.stderr, ["no host 'mac-4'", "did you mean 'mac-1'?"])
    }
}

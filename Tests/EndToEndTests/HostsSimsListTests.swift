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

/// What runs in progress hold, as `pipe sims list` and `pipe hosts list` show it.
final class HostsLeaseDisplayTests: HostsEndToEndTests {
    /// Writes a lease into the project's run store with the `sqlite3` tool, as another `pipe` process would have.
    private func insertLease(_ kind: String, host: String, udid: String?, runID: String, layer: String?, pid: Int32)
        throws
    {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let hostname = String(cString: buffer)  // as `pipe` names this machine in a lease's owner
        let values = [
            "'\(kind)'", "'\(host)'", udid.map { "'\($0)'" } ?? "NULL", "'\(runID)'", layer.map { "'\($0)'" } ?? "NULL",
            "'\(hostname)'", "\(pid)", "NULL", "'2026-11-29T14:03:12.000Z'",
        ]
        let sql =
            "INSERT INTO host_leases (kind, host, simulator_udid, run_id, layer, owner_host, owner_pid, owner_start, "
            + "acquired_at) VALUES (\(values.joined(separator: ", ")));"
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"), [project.url.appendingPathComponent(".pipe/pipe.db").path, sql])
        XCTAssertEqual(result.exitCode, 0, result.combined)
    }

    func testASimulatorHeldByARunInProgressSaysSoAndADeadProcessHoldsNothing() throws {
        // The store exists once any command has opened it.
        XCTAssertEqual(try project.pipe(["hosts", "list"]).exitCode, 0)
        let alive = getpid()
        let dead: Int32 = 4_000_000 + Int32.random(in: 0..<100_000)  // above Linux's pid_max: never a process
        try insertLease("host-slot", host: "mac-1", udid: nil, runID: "20261129-140312-7f3a", layer: nil, pid: alive)
        try insertLease(
            "simulator", host: "mac-1", udid: "90052AC6-D47D-4B2A-840D-6B5B081260C6", runID: "20261129-140312-7f3a",
            layer: "logic", pid: alive)
        try insertLease("host-slot", host: "mac-1", udid: nil, runID: "20261129-140000-dead", layer: nil, pid: dead)
        try insertLease(
            "simulator", host: "mac-1", udid: "903DBC5A-57F0-4CD5-90F5-6F91AFEDF6BD", runID: "20261129-140000-dead",
            layer: "logic", pid: dead)

        let sims = try project.pipe(["sims", "list", "--host", "mac-1"])
        XCTAssertEqual(sims.exitCode, 0, sims.combined)
        let lines = sims.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.first { $0.contains("90052AC6") }?.hasSuffix("yes, in use by run 20261129-140312-7f3a (layer logic)")
                ?? false, sims.stdout)
        XCTAssertTrue(lines.first { $0.contains("903DBC5A") }?.hasSuffix("Shutdown  yes") ?? false, sims.stdout)

        let hosts = try XCTUnwrap(try json(["hosts", "list", "--json"]) as? [[String: Any]])
        let mac1 = try XCTUnwrap(hosts.first { $0["name"] as? String == "mac-1" })
        XCTAssertEqual(mac1["leasedSlots"] as? Int, 1, "the dead process's slot is not in use")
        let leases = try XCTUnwrap(mac1["leases"] as? [[String: Any]])
        XCTAssertEqual(Set(leases.compactMap { $0["runID"] as? String }), ["20261129-140312-7f3a"])
        XCTAssertEqual(leases.compactMap { $0["pid"] as? Int }, [Int(alive), Int(alive)])
        let table = try project.pipe(["hosts", "list"])
        XCTAssertTrue(row("mac-1", in: table.stdout)?.contains("  2         1  ") ?? false, table.stdout)
    }
}

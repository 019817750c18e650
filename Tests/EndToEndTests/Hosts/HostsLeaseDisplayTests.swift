import Foundation
import PipeTestSupport
import XCTest

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

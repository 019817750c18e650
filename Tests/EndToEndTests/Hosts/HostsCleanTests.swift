import Foundation
import PipeTestSupport
import XCTest

/// `pipe hosts clean` after a coordinator was killed mid-run, while another run is in progress on another host.
final class HostsCleanTests: HostsEndToEndTests {
    typealias BackgroundPipe = EmulatedHostTestCase.BackgroundPipe

    /// Makes the first intent test take `seconds` (slept by the emulator), so a run stays in that layer.
    private func makeIntentLayerHang(_ seconds: Double) throws {
        let path = "examples/reader-app/pipe-canned-results.json"
        let data = try Data(contentsOf: project.url.appendingPathComponent(path))
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var schemes = try XCTUnwrap(json["schemes"] as? [String: Any])
        var reader = try XCTUnwrap(schemes["Reader"] as? [String: Any])
        var tests = try XCTUnwrap(reader["tests"] as? [[String: Any]])
        let index = try XCTUnwrap(tests.firstIndex { $0["suite"] as? String == "CheckReadingIDIntentTests" })
        tests[index]["duration"] = seconds
        reader["tests"] = tests
        schemes["Reader"] = reader
        json["schemes"] = schemes
        let text = String(
            decoding: try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]),
            as: UTF8.self)
        try project.commit(path, text, message: "the intent layer hangs")
    }

    /// Starts `pipe run` on `host` and waits until its intent layer runs tests there; returns the run id.
    private func startHangingRun(on host: String, notAmong earlier: [URL]) throws -> (BackgroundPipe, String) {
        let run = try BackgroundPipe(["run", "app-intents", "--host", host], in: project)
        var runID = ""
        waitUntil("the run on \(host) runs the intent layer's tests") {
            guard run.process.isRunning else {
                XCTFail("`pipe run` on \(host) ended early:\n\(run.wait().combined)")
                return true
            }
            guard let folder = project.runFolders().last(where: { !earlier.contains($0) }),
                let log = try? String(
                    contentsOf: folder.appendingPathComponent("intent/xcodebuild.log"), encoding: .utf8)
            else { return false }
            runID = folder.lastPathComponent
            return log.contains("Test Suite")
        }
        return (run, runID)
    }

    /// Live processes on `host` whose command line mentions `text`.
    private func processes(on host: EmulatedMacHost, mentioning text: String) throws -> [String] {
        try host.inspect("ps -eo stat=,args=").stdout.split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("Z") && $0.contains(text) && !$0.contains("ps -eo")
        }
    }

    func testAnInterruptedRunsFolderAndProcessesGoWhileARunInProgressIsLeftAlone() throws {
        try makeIntentLayerHang(600)
        let mac1 = host("mac-1")
        let mac2 = host("mac-2")

        // Run B is in progress on mac-2.
        let (running, inProgress) = try startHangingRun(on: "mac-2", notAmong: [])
        defer {
            kill(running.pid, SIGINT)
            running.wait(timeout: 30)
        }
        // Run A's coordinator dies in the middle of a layer: its xcodebuild keeps running on mac-1 (the next `pipe`
        // command other than `pipe hosts` would stop it; none runs here).
        let (killed, interrupted) = try startHangingRun(on: "mac-1", notAmong: project.runFolders())
        kill(killed.pid, SIGKILL)
        killed.wait(timeout: 10)
        let folderA = "/home/\(mac1.user)/\(workDirectory("mac-1"))/runs/\(interrupted)"
        let folderB = "/home/\(mac2.user)/\(workDirectory("mac-2"))/runs/\(inProgress)"
        XCTAssertFalse(try processes(on: mac1, mentioning: folderA).isEmpty, "run A's layer still runs on mac-1")
        // What is there, measured by other tools than Pipe's.
        let measured = try mac1.inspect("find \(folderA) -type f -printf '%s\\n'")
        let expectedBytes = measured.stdout.split(separator: "\n").compactMap { Int64($0) }.reduce(0, +)
        XCTAssertGreaterThan(expectedBytes, 0)

        // A folder this store has no record of (its run was pruned first, or another coordinator's) is only named.
        let mac3 = host("mac-3")
        let unknown = "/home/\(mac3.user)/\(workDirectory("mac-3"))/runs/20261128-090000-0b0b"
        XCTAssertEqual(try mac3.inspect("mkdir -p \(unknown)/workspace && echo x > \(unknown)/workspace/f").exitCode, 0)

        // A dry run changes nothing and says what would happen.
        let dry = try project.pipe(["hosts", "clean", "--dry-run"])
        XCTAssertEqual(dry.exitCode, 0, dry.combined)
        let dryRow = try XCTUnwrap(row("mac-1", in: dry.stdout), dry.combined)
        assertContains(dryRow, [interrupted, "interrupted", folderA, "would stop process group", "(layer intent)"])
        assertContains(dry.stdout, ["would free"])
        XCTAssertFalse(dry.stdout.contains(inProgress), "a run in progress is never listed:\n\(dry.stdout)")
        XCTAssertEqual(try mac1.inspect("test -d \(folderA)").exitCode, 0)
        XCTAssertFalse(try processes(on: mac1, mentioning: folderA).isEmpty)

        let clean = try project.pipe(["hosts", "clean"])
        XCTAssertEqual(clean.exitCode, 0, clean.combined)
        let cleanRow = try XCTUnwrap(row("mac-1", in: clean.stdout), clean.combined)
        assertContains(cleanRow, [interrupted, "stopped process group", "(layer intent)"])
        assertContains(
            clean.stdout,
            [
                "freed \(RunsFormattingCopy.bytes(expectedBytes)) (\(expectedBytes) bytes,",
                "in 1 run folder on 1 host",
                "stopped 1 process group",
            ])
        assertContains(
            clean.stderr,
            ["note: host mac-3 keeps a run folder this run store does not know", unknown, "Pipe leaves it alone"])
        XCTAssertEqual(try mac3.inspect("test -f \(unknown)/workspace/f").exitCode, 0, "left alone")
        XCTAssertEqual(try processes(on: mac1, mentioning: folderA), [], "run A's processes are gone")
        XCTAssertNotEqual(try mac1.inspect("test -e \(folderA)").exitCode, 0, "run A's folder is gone")

        // Run B, in progress on mac-2, kept its folder and its processes.
        XCTAssertEqual(try mac2.inspect("test -d \(folderB)").exitCode, 0)
        XCTAssertFalse(try processes(on: mac2, mentioning: folderB).isEmpty)
        XCTAssertTrue(running.process.isRunning)

        // The store knows: run A's folder is cleaned, so the next clean finds nothing.
        let shown = try XCTUnwrap(try json(["runs", "show", interrupted, "--json"]) as? [String: Any])
        XCTAssertEqual(shown["remoteFolderPendingCleanup"] as? Bool, false)
        let again = try project.pipe(["hosts", "clean", "mac-1"])
        XCTAssertEqual(again.exitCode, 0, again.combined)
        XCTAssertEqual(again.stdout, "nothing to clean on mac-1: no run folder of an ended run is left there\n")
    }

    /// A run whose intent layer hangs on `host`, its coordinator killed with -9 there; returns its remote folder.
    private func killAHangingRun(on name: String) throws -> (killed: BackgroundPipe, runID: String, folder: String) {
        try makeIntentLayerHang(600)
        let (killed, runID) = try startHangingRun(on: name, notAmong: [])
        kill(killed.pid, SIGKILL)
        killed.wait(timeout: 10)
        return (killed, runID, "/home/\(host(name).user)/\(workDirectory(name))/runs/\(runID)")
    }

    /// Any `pipe` command but `pipe hosts` that finds a dead coordinator's run stops what the run still runs on its
    /// host before marking it interrupted, so that its slot is not given out while its work goes on.
    func testTheNextCommandStopsADeadRunsProcessesBeforeMarkingItInterrupted() throws {
        let (killed, interrupted, folder) = try killAHangingRun(on: "mac-1")
        let mac1 = host("mac-1")
        XCTAssertFalse(
            try processes(on: mac1, mentioning: folder).isEmpty, "a coordinator killed with -9 stops nothing")

        let listed = try project.pipe(["runs", "list"])
        XCTAssertEqual(listed.exitCode, 0, listed.combined)
        assertContains(
            listed.stderr,
            [
                "note: run \(interrupted): its coordinator (pid \(killed.pid)) died; stopped 1 process group on mac-1",
                "(layer intent)", "note: run \(interrupted) (app-intents) was interrupted",
            ])
        XCTAssertEqual(try processes(on: mac1, mentioning: folder), [], "run A's processes are gone")
        let shown = try XCTUnwrap(try json(["runs", "show", interrupted, "--json"]) as? [String: Any])
        XCTAssertEqual(shown["status"] as? String, "interrupted")
    }

    func testAHostThatIsDownKeepsItsFolderPendingAndFailsTheClean() throws {
        let (_, interrupted, folder) = try killAHangingRun(on: "mac-2")
        let mac2 = host("mac-2")
        defer { _ = try? mac2.inspect("pkill -9 -f \(folder); true") }
        stop("mac-2")

        let clean = try project.pipe(["hosts", "clean"])
        XCTAssertEqual(clean.exitCode, 3, clean.combined)
        assertContains(clean.stderr, ["error: host mac-2: cannot connect to 127.0.0.1:\(mac2.port)"])
        let shown = try XCTUnwrap(try json(["runs", "show", interrupted, "--json"]) as? [String: Any])
        XCTAssertEqual(shown["remoteFolderPendingCleanup"] as? Bool, true, "still to clean once the host is back")

        try restart("mac-2")
        let later = try project.pipe(["hosts", "clean", "mac-2"])
        XCTAssertEqual(later.exitCode, 0, later.combined)
        assertContains(later.stdout, [interrupted, "stopped process group", "freed"])
    }
}

/// The size format of Pipe's tables (`RunsFormatting.bytes`): powers of 1000, one decimal.
private enum RunsFormattingCopy {
    static func bytes(_ value: Int64) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1000, unit < units.count - 1 {
            amount /= 1000
            unit += 1
        }
        return unit == 0 ? "\(value) B" : String(format: "%.1f", amount) + " " + units[unit]
    }
}

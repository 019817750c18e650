import Foundation
import PipeBasics
import PipeCore
import XCTest

@testable import PipeSSH

#if canImport(Glibc)
    import Glibc
#endif

/// Commands over a real sshd: output, exit codes and signals, input, large interleaved streams, process groups that
/// are killed on timeout and cancellation, dropped connections.
final class SSHRemoteHostTests: XCTestCase {
    private var server: TestSSHServer!
    private var host: SSHRemoteHost!

    override func setUpWithError() throws {
        server = try TestSSHServer.require()
        host = SSHRemoteHost(session: try SSHSession.connect(to: server.hostConfig()), terminationGraceSeconds: 1)
    }

    override func tearDown() {
        host?.session.disconnect()
        host = nil
    }

    func testCaptureReturnsBothStreamsAndTheExitCode() throws {
        let output = try host.capture("echo out; echo err >&2; exit 3")
        XCTAssertEqual(output.stdoutText, "out\n")
        XCTAssertEqual(output.stderrText, "err\n")
        XCTAssertEqual(output.exit, .exited(3))
    }

    func testCommandRunsUnderShWithValuesIntact() throws {
        let hostile = "it's $(touch /tmp/pwned) `id` ; rm -rf x\nnew line \\ \"q\""
        let output = try host.capture(ShellQuote.join(["printf", "%s", hostile]))
        XCTAssertEqual(output.stdoutText, hostile)
        XCTAssertEqual(output.exit, .exited(0))
    }

    func testSignalEndingTheCommandIsReported() throws {
        XCTAssertEqual(try host.capture("kill -TERM $$").exit, .signaled("TERM"))
        XCTAssertEqual(try host.capture("kill -KILL $$").exit, .signaled("KILL"))
    }

    func testStandardInputIsDeliveredWhole() throws {
        var bytes = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 17)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
        let input = Data(bytes)
        let output = try host.capture("shasum -a 256; wc -c < /dev/null", stdin: input, timeoutSeconds: 60)
        XCTAssertEqual(output.exit, .exited(0), output.stderrText)
        XCTAssertEqual(output.stdoutText.split(separator: " ").first.map(String.init), SHA256Digest.hex(of: input))
    }

    func testCommandThatIgnoresItsInputStillEnds() throws {
        let output = try host.capture("echo done", stdin: Data(count: 4 * 1024 * 1024), timeoutSeconds: 20)
        XCTAssertEqual(output.exit, .exited(0))
        XCTAssertEqual(output.stdoutText, "done\n")
    }

    func testAlreadyCancelledRunStartsNothing() throws {
        let token = CancellationToken()
        token.cancel()
        var started = false
        let exit = try host.runStoppable(
            "echo must-not-run", stdin: nil, timeoutSeconds: nil, cancellation: token,
            onStarted: { _ in started = true },
            onStdout: { _ in XCTFail("output from a cancelled run") }, onStderr: { _ in })
        XCTAssertEqual(exit, .cancelled)
        XCTAssertFalse(started)
    }

    func testLargeInterleavedStdoutAndStderrDoNotStall() throws {
        let size = 6_000_000
        let started = Date()
        let output = try host.capture(
            "yes stdout-line | head -c \(size) & yes stderr-line | head -c \(size) >&2; wait", stdin: nil,
            timeoutSeconds: 60)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(output.exit, .exited(0))
        // Each stream whole and unmixed: exactly the repeated line, cut at `size`.
        func expected(_ line: String) -> Data {
            Data(String(repeating: line, count: size / line.count + 1).utf8.prefix(size))
        }
        XCTAssertEqual(output.stdout.count, size)
        XCTAssertEqual(output.stderr.count, size)
        XCTAssertTrue(output.stdout == expected("stdout-line\n"))
        XCTAssertTrue(output.stderr == expected("stderr-line\n"))
        XCTAssertLessThan(seconds, 20)
        print("PipeSSH: 2 × \(size) bytes interleaved in \(String(format: "%.2f", seconds)) s")
    }

    func testManyChannelsOnOneSession() throws {
        // sshd allows 10 open channels (MaxSessions): a leaked channel would fail this within a dozen commands.
        for index in 0..<120 {
            let output = try host.capture("echo \(index)")
            XCTAssertEqual(output.stdoutText, "\(index)\n")
        }
        var streamed = [String]()
        let exit = try host.runStoppable(
            "for i in 1 2 3; do echo $i; done", stdin: nil, timeoutSeconds: 10, cancellation: CancellationToken(),
            onStarted: { _ in }, onStdout: { streamed.append(String(decoding: $0, as: UTF8.self)) }, onStderr: { _ in })
        XCTAssertEqual(exit, .exited(0))
        XCTAssertEqual(streamed.joined(), "1\n2\n3\n")
    }

    func testRunStoppableStreamsLiveAndAnnouncesItsGroupFirst() throws {
        var events = [String]()
        var group: RemoteProcessGroup?
        let exit = try host.runStoppable(
            "echo one; sleep 0.3; echo warn >&2; sleep 0.3; echo two; exit 7", stdin: nil, timeoutSeconds: 20,
            cancellation: CancellationToken(),
            onStarted: {
                group = $0
                events.append("started")
            },
            onStdout: { events.append("out:" + String(decoding: $0, as: UTF8.self)) },
            onStderr: { events.append("err:" + String(decoding: $0, as: UTF8.self)) })
        XCTAssertEqual(exit, .exited(7))
        XCTAssertEqual(events, ["started", "out:one\n", "err:warn\n", "out:two\n"])
        XCTAssertGreaterThan(group?.id ?? 0, 1)
    }

    func testTimeoutKillsTheWholeProcessGroup() throws {
        var group: RemoteProcessGroup?
        var stdout = ""
        let started = Date()
        let exit = try host.runStoppable(
            "sleep 301 & sleep 302 & echo children started; wait", stdin: nil, timeoutSeconds: 1.5,
            cancellation: CancellationToken(), onStarted: { group = $0 },
            onStdout: { stdout += String(decoding: $0, as: UTF8.self) }, onStderr: { _ in })
        XCTAssertEqual(exit, .timedOut)
        XCTAssertEqual(stdout, "children started\n")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        try assertNothingLeft(of: try XCTUnwrap(group), commands: ["sleep 301", "sleep 302"])
    }

    func testCancellationKillsTheGroupEvenWhatIgnoresSIGTERM() throws {
        let token = CancellationToken()
        var group: RemoteProcessGroup?
        let started = Date()
        let exit = try host.runStoppable(
            "sh -c 'trap \"\" TERM; sleep 303' & sleep 304 & echo ready; wait", stdin: nil, timeoutSeconds: 60,
            cancellation: token, onStarted: { group = $0 },
            onStdout: { if String(decoding: $0, as: UTF8.self).contains("ready") { token.cancel() } },
            onStderr: { _ in })
        XCTAssertEqual(exit, .cancelled)
        // SIGTERM is ignored by one member: the grace period (1 s) passes, then SIGKILL.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        try assertNothingLeft(of: try XCTUnwrap(group), commands: ["sleep 303", "sleep 304"])
    }

    func testCaptureTimeoutKillsItsGroup() throws {
        let output = try host.capture("echo begun; sleep 305; echo never", stdin: nil, timeoutSeconds: 1)
        XCTAssertEqual(output.exit, .timedOut)
        XCTAssertEqual(output.stdoutText, "begun\n")
        try assertNothingLeft(of: nil, commands: ["sleep 305"])
    }

    func testDroppedConnectionIsReportedAsLost() throws {
        var group: RemoteProcessGroup?
        var sshdSessionProcess: pid_t = 0
        let exit = try host.runStoppable(
            "echo $PPID; exec sleep 306", stdin: nil, timeoutSeconds: 30, cancellation: CancellationToken(),
            onStarted: { group = $0 },
            onStdout: { chunk in
                // The login shell's parent is sshd's process for this connection: killing it drops the connection.
                sshdSessionProcess =
                    pid_t(String(decoding: chunk, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                if sshdSessionProcess > 1 { kill(sshdSessionProcess, SIGKILL) }
            }, onStderr: { _ in })
        guard case .lost(let reason) = exit else { return XCTFail("expected .lost, got \(exit)") }
        XCTAssertFalse(reason.isEmpty)
        XCTAssertThrowsError(try host.capture("true")) { error in
            XCTAssertEqual((error as? RemoteError)?.kind, .connectionLost)
        }
        XCTAssertFalse(host.session.isConnected)

        // The recorded group outlives the connection; a new session stops it.
        let fresh = SSHRemoteHost(session: try SSHSession.connect(to: server.hostConfig()))
        try fresh.terminate(try XCTUnwrap(group), graceSeconds: 1)
        host = fresh
        try assertNothingLeft(of: group, commands: ["sleep 306"])
    }

    func testTerminateRefusesNonsenseGroups() {
        for id: Int32 in [-1, 0, 1] {
            XCTAssertThrowsError(try host.terminate(RemoteProcessGroup(id: id)))
        }
    }

    /// No live (non-zombie) process of `group` or running one of `commands` is left on the host.
    private func assertNothingLeft(
        of group: RemoteProcessGroup?, commands: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        // Zombies are dead: this machine's PID 1 does not reap orphans, a Mac's launchd does.
        let listing = try host.capture("ps -A -o pgid= -o stat= -o args=").stdoutText
        let live = listing.split(separator: "\n").filter { entry in
            let fields = entry.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, !fields[1].hasPrefix("Z") else { return false }
            return fields[0] == "\(group?.id ?? -99)" || commands.contains { String(fields[2]).contains($0) }
        }
        XCTAssertEqual(live, [], "still running on the host", file: file, line: line)
    }
}

import Foundation
import PipeBasics
import XCTest

@testable import PipeSSH

#if canImport(Glibc)
    import Glibc
#endif

/// The host-side scripts run locally under dash (Debian's `sh`, the emulated host's) and bash in POSIX mode (what
/// macOS's `/bin/sh` runs), so a construct only one of them accepts fails here rather than on a Mac.
final class RemoteScriptTests: XCTestCase {
    private static let shells: [[String]] = [["/usr/bin/dash"], ["/usr/bin/bash", "--posix"]]
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "pipe-script-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    func testGroupLeaderAnnouncesItsGroupThenRunsTheCommand() throws {
        for shell in Self.shells {
            // `setsid` stands in for sshd, which starts every session's command as a process group leader.
            let result = try run(
                ["/usr/bin/setsid", "--wait"] + shell,
                script: RemoteScript.groupLeader, arguments: ["echo out; echo err >&2; exit 4", "MARK"])
            XCTAssertEqual(result.status, 4, "\(shell)")
            XCTAssertEqual(result.stdout, "out\n", "\(shell)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, "\(shell): \(result.stderr)")
            XCTAssertTrue(lines.first?.hasPrefix("MARK ") ?? false, "\(shell): \(result.stderr)")
            XCTAssertGreaterThan(Int32(lines.first?.dropFirst(5) ?? "") ?? 0, 1, "\(shell)")
            XCTAssertEqual(lines.last, "err", "\(shell)")
        }
    }

    func testGroupLeaderRefusesWhenNotLeadingItsGroup() throws {
        for shell in Self.shells {
            // Foundation starts children as group leaders: a parent shell that forks (it has more to do after the
            // command) keeps the group, as a non-OpenSSH server might.
            let notLeader = ["/bin/sh", "-c", "\"$@\"; exit $?", "parent"] + shell
            let result = try run(notLeader, script: RemoteScript.groupLeader, arguments: ["echo must-not-run", "MARK"])
            XCTAssertEqual(result.status, 125, "\(shell)")
            XCTAssertEqual(result.stdout, "", "\(shell)")
            XCTAssertTrue(result.stderr.contains("own process group"), "\(shell): \(result.stderr)")
        }
    }

    func testKillGroupEscalatesToKillAndLeavesNothing() throws {
        for (index, shell) in Self.shells.enumerated() {
            let marker = "3\(index)9"
            let leader = try TestSSHServer.spawn(
                "/usr/bin/setsid",
                ["/bin/sh", "-c", "sh -c 'trap \"\" TERM; sleep \(marker)1' & sleep \(marker)2 & wait"])
            defer {
                var status: Int32 = 0
                _ = waitpid(leader, &status, 0)
            }
            usleep(200_000)
            let result = try run(shell, script: RemoteScript.killGroup, arguments: [String(leader), "5"])
            XCTAssertEqual(result.status, 0, "\(shell): \(result.stderr)")
            XCTAssertEqual(result.stdout, "kill\n", "\(shell): SIGTERM is ignored by one member")
            let listing = try TestSSHServer.run("/usr/bin/ps", ["-A", "-o", "stat=", "-o", "args="])
            let live = listing.split(separator: "\n").filter { !$0.hasPrefix("Z") && $0.contains("sleep \(marker)") }
            XCTAssertEqual(live, [], "\(shell)")
        }
    }

    func testKillGroupRefusesGroupsThatAreNotOneCommand() throws {
        for shell in Self.shells {
            for group in ["1", "0", "-1", "x"] {
                let result = try run(shell, script: RemoteScript.killGroup, arguments: [group, "1"])
                XCTAssertEqual(result.status, 2, "\(shell) \(group)")
            }
        }
    }

    func testUploadAndDownloadScriptsReportTheDigestOfTheStream() throws {
        let source = scratch.appendingPathComponent("source")
        try FileManager.default.createDirectory(
            at: source.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data(repeating: 7, count: 300_000).write(to: source.appendingPathComponent("sub/file"))
        let stream = try TestSSHServer.runData("/usr/bin/tar", ["-cf", "-", "-C", source.path, "."])
        let digest = SHA256Digest.hex(of: stream)

        for (index, shell) in Self.shells.enumerated() {
            let destination = scratch.appendingPathComponent("dest \(index) 'q'").path
            let up = try run(shell, script: RemoteScript.extractUpload, arguments: [destination], stdin: stream)
            XCTAssertEqual(up.status, 0, "\(shell): \(up.stderr)")
            XCTAssertEqual(up.stdout, "pipe-sha256 \(digest)\n", "\(shell)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination + "/sub/file")).count, 300_000)

            let down = try run(shell, script: RemoteScript.archiveDownload, arguments: [destination, "sub"])
            XCTAssertEqual(down.status, 0, "\(shell)")
            let report = down.stderr
            XCTAssertEqual(SSHRemoteHost.field("pipe-tar-status", in: report), "0", "\(shell): \(report)")
            XCTAssertEqual(SSHRemoteHost.field("pipe-sha256", in: report), SHA256Digest.hex(of: down.stdoutData))
            // The stream itself is a whole tar archive: it extracts to what was archived.
            let back = scratch.appendingPathComponent("back \(index)")
            try FileManager.default.createDirectory(at: back, withIntermediateDirectories: true)
            let extract = Process()
            extract.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
            extract.arguments = ["-xf", "-", "-C", back.path]
            let pipe = Pipe()
            extract.standardInput = pipe
            try extract.run()
            pipe.fileHandleForWriting.write(down.stdoutData)
            try pipe.fileHandleForWriting.close()
            extract.waitUntilExit()
            XCTAssertEqual(extract.terminationStatus, 0, "\(shell)")
            XCTAssertEqual(try Data(contentsOf: back.appendingPathComponent("sub/file")).count, 300_000, "\(shell)")

            let missing = try run(shell, script: RemoteScript.archiveDownload, arguments: [destination, "absent"])
            XCTAssertEqual(missing.status, 66, "\(shell)")
            XCTAssertEqual(missing.stderr, "pipe-missing\n", "\(shell)")
        }
    }

    // MARK: - Helpers

    private struct Result {
        var status: Int32
        var stdoutData: Data
        var stderr: String
        var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    }

    /// Runs `script` the way `RemoteScript.commandLine` does (`<shell> -c script name arguments…`).
    private func run(_ shell: [String], script: String, arguments: [String], stdin: Data = Data()) throws -> Result {
        let input = scratch.appendingPathComponent("stdin-\(UUID().uuidString)")
        let output = scratch.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errors = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        try stdin.write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell[0])
        process.arguments = Array(shell.dropFirst()) + ["-c", script, "pipe-test"] + arguments
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdoutData: try Data(contentsOf: output),
            stderr: try String(contentsOf: errors, encoding: .utf8))
    }
}

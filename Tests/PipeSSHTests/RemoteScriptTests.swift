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

    /// The command runs in the leader's own shell (`eval`): it must still see it as `sh -c` would show it.
    func testGroupLeaderGivesTheCommandNoArgumentsOfOursAndRunsNothingOfOneWithASyntaxError() throws {
        for shell in Self.shells {
            let seen = try run(
                ["/usr/bin/setsid", "--wait"] + shell, script: RemoteScript.groupLeader,
                arguments: ["echo \"$#:${1-none}:${2-none}\"; exec /bin/sh -c 'echo $$'", "MARK"])
            XCTAssertEqual(seen.status, 0, "\(shell): \(seen.stderr)")
            let lines = seen.stdout.split(separator: "\n")
            XCTAssertEqual(lines.first, "0:none:none", "\(shell)")
            // `exec` in the command keeps the announced pid: the group Pipe would stop is the command's own.
            XCTAssertEqual(
                lines.last.map(String.init), seen.stderr.split(separator: "\n").first.map { String($0.dropFirst(5)) },
                "\(shell): \(seen.stdout) / \(seen.stderr)")

            let broken = try run(
                ["/usr/bin/setsid", "--wait"] + shell, script: RemoteScript.groupLeader,
                arguments: ["echo must-not-run; ( echo", "MARK"])
            XCTAssertEqual(broken.status, 2, "\(shell): \(broken.stderr)")
            XCTAssertEqual(broken.stdout, "", "\(shell)")
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
            try extract(down.stdoutData, into: back)
            XCTAssertEqual(try Data(contentsOf: back.appendingPathComponent("sub/file")).count, 300_000, "\(shell)")

            let missing = try run(shell, script: RemoteScript.archiveDownload, arguments: [destination, "absent"])
            XCTAssertEqual(missing.status, 66, "\(shell)")
            XCTAssertEqual(missing.stderr, "pipe-missing\n", "\(shell)")
        }
    }

    func testDownloadPartsPlanTheSameSplitAndTogetherHoldTheWholeFolder() throws {
        let parent = scratch.appendingPathComponent("host")
        let bundle = parent.appendingPathComponent("R.xcresult")
        let manager = FileManager.default
        try manager.createDirectory(at: bundle.appendingPathComponent("Data/empty"), withIntermediateDirectories: true)
        for (index, size) in [3_000_000, 2_000_000, 1_200_000, 900, 40, 0].enumerated() {
            try Data(repeating: UInt8(index), count: size).write(to: bundle.appendingPathComponent("Data/f\(index)"))
        }
        try "x\n".write(to: bundle.appendingPathComponent("it's $(odd).txt"), atomically: true, encoding: .utf8)
        try manager.createSymbolicLink(
            atPath: bundle.appendingPathComponent("link").path, withDestinationPath: "Data/f0")
        try manager.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: bundle.path)

        func planLists() throws -> Set<String> {
            Set(try manager.contentsOfDirectory(atPath: "/tmp").filter { $0.hasPrefix("pipe-part.") })
        }
        for (index, shell) in Self.shells.enumerated() {
            let before = try planLists()
            let parts = try (1...2).map {
                try run(
                    shell, script: RemoteScript.archiveDownload,
                    arguments: [parent.path, "R.xcresult", "\($0)", "1000"])
            }
            let plans = parts.map { SSHRemoteHost.field("pipe-plan", in: $0.stderr) }
            XCTAssertEqual(plans, ["split", "split"], "\(shell): \(parts.map(\.stderr))")
            let words = parts.map { part in
                part.stderr.split(separator: "\n").first { $0.hasPrefix("pipe-plan ") }?.split(separator: " ") ?? []
            }
            // split, cksum (two words), total bytes, files, this part's bytes
            XCTAssertEqual(words[0].count, 7, "\(shell): \(words)")
            XCTAssertEqual(words[0].dropLast(), words[1].dropLast(), "\(shell): the same plan on both sides")
            XCTAssertEqual(words[0][4], "6200942", "\(shell): every file's bytes")
            // Largest first, each to the lighter part: 3.0 MB and the small ones | 2.0 + 1.2 MB.
            XCTAssertEqual(words[0].last, "3000942", "\(shell)")
            XCTAssertEqual(words[1].last, "3200000", "\(shell)")
            let back = scratch.appendingPathComponent("back-\(index)")
            try manager.createDirectory(at: back, withIntermediateDirectories: true)
            for part in parts {
                XCTAssertEqual(part.status, 0, "\(shell): \(part.stderr)")
                XCTAssertEqual(SSHRemoteHost.field("pipe-tar-status", in: part.stderr), "0", "\(shell)")
                XCTAssertEqual(
                    SSHRemoteHost.field("pipe-sha256", in: part.stderr), SHA256Digest.hex(of: part.stdoutData))
                try extract(part.stdoutData, into: back)
            }
            XCTAssertLessThan(parts[0].stdoutData.count, 3_300_000, "\(shell): each file in one part only")
            XCTAssertLessThan(parts[1].stdoutData.count, 3_500_000, "\(shell): each file in one part only")
            let copy = back.appendingPathComponent("R.xcresult")
            XCTAssertEqual(
                try manager.subpathsOfDirectory(atPath: copy.path).sorted(),
                try manager.subpathsOfDirectory(atPath: bundle.path).sorted(), "\(shell)")
            XCTAssertEqual(try Data(contentsOf: copy.appendingPathComponent("Data/f1")).count, 2_000_000)
            XCTAssertEqual(
                try manager.destinationOfSymbolicLink(atPath: copy.appendingPathComponent("link").path), "Data/f0")
            XCTAssertEqual(
                try manager.attributesOfItem(atPath: copy.path)[.modificationDate] as? Date,
                Date(timeIntervalSince1970: 1_700_000_000), "\(shell): the folder's time survives both parts")
            XCTAssertEqual(try planLists().subtracting(before), [], "\(shell): the plan's lists are removed")
        }
    }

    func testDownloadPartsSendTheWholeItemWhenSplittingCannotPay() throws {
        let parent = scratch.appendingPathComponent("host")
        let manager = FileManager.default
        try manager.createDirectory(at: parent.appendingPathComponent("small"), withIntermediateDirectories: true)
        try Data(repeating: 1, count: 5_000).write(to: parent.appendingPathComponent("small/a"))
        try Data(repeating: 2, count: 5_000).write(to: parent.appendingPathComponent("small/b"))
        try manager.createDirectory(at: parent.appendingPathComponent("odd"), withIntermediateDirectories: true)
        try Data(repeating: 1, count: 5_000).write(to: parent.appendingPathComponent("odd/a\\b"))
        try Data(repeating: 2, count: 5_000).write(to: parent.appendingPathComponent("odd/c"))
        try Data(repeating: 3, count: 5_000).write(to: parent.appendingPathComponent("file"))

        for shell in Self.shells {
            // Below the minimum (du's 12 KiB < 1 MiB), a name tar's lists would misread, a lone file: part 1 sends
            // it all and part 2 nothing.
            for (item, minimum) in [("small", "1048576"), ("odd", "1000"), ("file", "1000")] {
                let first = try run(
                    shell, script: RemoteScript.archiveDownload, arguments: [parent.path, item, "1", minimum])
                XCTAssertEqual(first.status, 0, "\(shell) \(item): \(first.stderr)")
                XCTAssertEqual(SSHRemoteHost.field("pipe-plan", in: first.stderr), "whole", "\(shell) \(item)")
                XCTAssertEqual(
                    SSHRemoteHost.field("pipe-sha256", in: first.stderr), SHA256Digest.hex(of: first.stdoutData))
                XCTAssertGreaterThan(first.stdoutData.count, 5_000, "\(shell) \(item)")
                let whole = try run(
                    shell, script: RemoteScript.archiveDownload, arguments: [parent.path, item, "0", "0"])
                XCTAssertEqual(whole.stdoutData, first.stdoutData, "\(shell) \(item): the same stream as part 0")
            }
            let second = try run(
                shell, script: RemoteScript.archiveDownload, arguments: [parent.path, "odd", "2", "1000"])
            XCTAssertEqual(second.status, 0, "\(shell)")
            XCTAssertEqual(second.stdoutData.count, 0, "\(shell)")
            XCTAssertEqual(second.stderr, "pipe-plan whole\n", "\(shell)")
        }
    }

    func testAListingThatFailsMakesTheFirstPartSendEverything() throws {
        let parent = scratch.appendingPathComponent("host")
        try FileManager.default.createDirectory(
            at: parent.appendingPathComponent("R/sub"), withIntermediateDirectories: true)
        for name in ["a", "sub/b", "sub/c"] {
            try Data(repeating: 1, count: 5_000).write(to: parent.appendingPathComponent("R/\(name)"))
        }
        // A `find` that lists files but then fails, as one does on a folder it cannot read: a half planned from
        // that listing would silently lack what it missed.
        let tools = scratch.appendingPathComponent("tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        let find = tools.appendingPathComponent("find")
        try "#!/bin/sh\n/usr/bin/find \"$@\"; echo \"find: './R/secret': Permission denied\" >&2; exit 1\n".write(
            to: find, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: find.path)
        for shell in Self.shells {
            let first = try run(
                shell, script: RemoteScript.archiveDownload, arguments: [parent.path, "R", "1", "1000"],
                path: tools.path + ":/usr/bin:/bin")
            XCTAssertEqual(first.status, 0, "\(shell): \(first.stderr)")
            XCTAssertEqual(first.stderr.split(separator: "\n").first, "pipe-plan whole", "\(shell): \(first.stderr)")
            let back = scratch.appendingPathComponent("back-\(UUID().uuidString.prefix(6))")
            try FileManager.default.createDirectory(at: back, withIntermediateDirectories: true)
            try extract(first.stdoutData, into: back)
            XCTAssertEqual(
                try FileManager.default.subpathsOfDirectory(atPath: back.appendingPathComponent("R").path).sorted(),
                ["a", "sub", "sub/b", "sub/c"], "\(shell)")
        }
    }

    /// The sync does not digest its archive on the host (SSH's MAC vouches for the bytes): an archive cut short must
    /// still never pass for whole. Cut between members, or in the manifest's header, it lacks the manifest, which
    /// is the last member; cut in a member's data, tar fails. Either way the copy is left marked dirty, no run
    /// folder is made, and the next sync is told there is no usable copy, even by a coordinator that remembers it.
    func testASyncArchiveCutShortIsRefusedAndLeavesTheCopyDirty() throws {
        let staging = scratch.appendingPathComponent("staging")
        try FileManager.default.createDirectory(
            at: staging.appendingPathComponent("tree"), withIntermediateDirectories: true)
        try Data("hello\n".utf8).write(to: staging.appendingPathComponent("tree/a"))
        try Data(repeating: 5, count: 2000).write(to: staging.appendingPathComponent("tree/b"))
        // Headers and data in 512-byte blocks: a at 0, b at 1024 (its data 1536..<3584), the manifest at 3584.
        func archive(token: String) throws -> Data {
            let manifest = staging.appendingPathComponent("manifest.incoming.\(token)")
            try Data("manifest\n".utf8).write(to: manifest)
            defer { try? FileManager.default.removeItem(at: manifest) }
            return Data("pipe-sync full 0\n".utf8)
                + (try TestSSHServer.runData(
                    "/usr/bin/tar", ["-cf", "-", "-C", staging.path, "tree/a", "tree/b", manifest.lastPathComponent]))
        }
        let request = "pipe-sync full 0\n".utf8.count
        let path = try shimmedTools()
        let cuts = [("between members", 3584), ("in the manifest's header", 3584 + 100), ("in b's data", 2048)]
        for (index, shell) in Self.shells.enumerated() {
            for (what, length) in cuts {
                let cache = scratch.appendingPathComponent("cache-\(index)-\(length)").path
                let label = "\(shell), cut \(what)"
                let first = try run(
                    shell, script: RemoteScript.syncWorkspace, arguments: [cache, cache + "-run1", "one", "10", "-"],
                    stdin: try archive(token: "one"), path: path)
                XCTAssertEqual(
                    first.stdout, "pipe-manifest none\npipe-applied\npipe-cloned\n", "\(label): \(first.stderr)")

                let cut = try run(
                    shell, script: RemoteScript.syncWorkspace, arguments: [cache, cache + "-run2", "two", "10", "one"],
                    stdin: (try archive(token: "two")).prefix(request + length), path: path)
                XCTAssertEqual(cut.status, 2, "\(label): \(cut.stderr)")
                XCTAssertEqual(cut.stdout, "pipe-manifest same\n", label)
                XCTAssertEqual(try String(contentsOfFile: cache + "/manifest.id", encoding: .utf8), "dirty\n", label)
                XCTAssertFalse(FileManager.default.fileExists(atPath: cache + "-run2"), label)

                let next = try run(
                    shell, script: RemoteScript.syncWorkspace,
                    arguments: [cache, cache + "-run3", "three", "10", "one"],
                    path: path)
                XCTAssertEqual(next.status, 0, "\(label): \(next.stderr)")
                XCTAssertEqual(next.stdout, "pipe-manifest none\n", label)
            }
        }
    }

    /// `pipe-sync … gzip …` / `… zstd …`: the archive goes through `gzip -dc` or `zstd -dc`; a compressed archive
    /// cut short is refused like a plain one, even when what the decompressor could unpack of it happens to end
    /// between tar members. A host with `zstd` says so before its manifest line; one without refuses a zstd archive.
    func testACompressedSyncArchiveIsUnpackedAndOneCutShortIsRefused() throws {
        let staging = scratch.appendingPathComponent("staging")
        try FileManager.default.createDirectory(
            at: staging.appendingPathComponent("tree"), withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        try Data((0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            .write(to: staging.appendingPathComponent("tree/random"))
        let (plainTools, zstdTools) = (try shimmedTools(), try shimmedTools(zstd: true))
        for (index, shell) in Self.shells.enumerated() {
            for (format, compressor) in [("gzip", "gzip -1"), ("zstd", "zstd -1 -q -c")] {
                let label = "\(shell) \(format)"
                let cache = scratch.appendingPathComponent("zcache-\(index)-\(format)").path
                let manifest = staging.appendingPathComponent("manifest.incoming.one")
                try Data("manifest\n".utf8).write(to: manifest)
                let archive = try TestSSHServer.runData(
                    "/bin/sh",
                    ["-c", "tar -cf - -C '\(staging.path)' tree/random manifest.incoming.one | \(compressor)"])
                try FileManager.default.removeItem(at: manifest)
                let request = Data("pipe-sync full \(format) 0\n".utf8)
                let whole = try run(
                    shell, script: RemoteScript.syncWorkspace, arguments: [cache, cache + "-run1", "one", "10", "-"],
                    stdin: request + archive, path: zstdTools)
                XCTAssertEqual(
                    whole.stdout, "pipe-zstd\npipe-manifest none\npipe-applied\npipe-cloned\n",
                    "\(label): \(whole.stderr)")
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cache + "-run1/random")).count, 50_000)

                let cut = try run(
                    shell, script: RemoteScript.syncWorkspace, arguments: [cache, cache + "-run2", "two", "10", "one"],
                    stdin: request + archive.prefix(archive.count / 2), path: zstdTools)
                XCTAssertEqual(cut.status, 2, "\(label): \(cut.stderr)")
                XCTAssertEqual(
                    try String(contentsOfFile: cache + "/manifest.id", encoding: .utf8), "dirty\n", label)
                XCTAssertFalse(FileManager.default.fileExists(atPath: cache + "-run2"), label)

                let withoutZstd = try run(
                    shell, script: RemoteScript.syncWorkspace, arguments: [cache, cache + "-run3", "one", "10", "-"],
                    stdin: request + archive, path: plainTools)
                XCTAssertTrue(withoutZstd.stdout.hasPrefix("pipe-manifest none\n"), "\(label): \(withoutZstd.stdout)")
                if format == "zstd" {
                    XCTAssertEqual(withoutZstd.status, 2, label)
                    XCTAssertTrue(withoutZstd.stderr.contains("this host has none"), "\(label): \(withoutZstd.stderr)")
                    XCTAssertFalse(FileManager.default.fileExists(atPath: cache + "-run3"), label)
                } else {
                    XCTAssertEqual(withoutZstd.status, 0, "\(label): \(withoutZstd.stderr)")
                }
            }
        }
    }

    /// A PATH of the tools a stock macOS has for the sync script (no `zstd` unless `zstd`), whose `cp` takes
    /// macOS's `-c` (APFS clones), which GNU cp does not know, as `cp` without it.
    private func shimmedTools(zstd: Bool = false) throws -> String {
        let tools = scratch.appendingPathComponent(zstd ? "tools-zstd" : "tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        let copy = tools.appendingPathComponent("cp")
        try Data("#!/bin/sh\n[ \"$1\" = -c ] && shift\nexec /bin/cp \"$@\"\n".utf8).write(to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
        for tool in ["cat", "gzip", "mkdir", "mv", "rm", "rmdir", "sleep", "tar", "wc"] + (zstd ? ["zstd"] : []) {
            try FileManager.default.createSymbolicLink(
                atPath: tools.appendingPathComponent(tool).path, withDestinationPath: "/usr/bin/\(tool)")
        }
        return tools.path
    }

    /// Extracts a tar stream with the local GNU tar, which must succeed.
    private func extract(_ stream: Data, into folder: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        process.arguments = ["-xf", "-", "-C", folder.path]
        let pipe = Pipe()
        process.standardInput = pipe
        try process.run()
        pipe.fileHandleForWriting.write(stream)
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, file: file, line: line)
    }

    // MARK: - Helpers

    private struct Result {
        var status: Int32
        var stdoutData: Data
        var stderr: String
        var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    }

    /// Runs `script` the way `RemoteScript.commandLine` does (`<shell> -c script name arguments…`).
    private func run(
        _ shell: [String], script: String, arguments: [String], stdin: Data = Data(), path: String? = nil
    ) throws -> Result {
        let input = scratch.appendingPathComponent("stdin-\(UUID().uuidString)")
        let output = scratch.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errors = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        try stdin.write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell[0])
        if let path { process.environment = ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 } }
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

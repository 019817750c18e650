import Foundation
import PipeBasics
import PipeCore
import XCTest

@testable import PipeSSH

/// Folders up and down as verified tar streams over a real sshd; failures never leave something that looks whole.
final class SSHTransferTests: XCTestCase {
    private var server: TestSSHServer!
    private var host: SSHRemoteHost!
    private var local: URL!
    /// Per-test folder on the host, relative to the login's home.
    private var remote: String!

    override func setUpWithError() throws {
        server = try TestSSHServer.require()
        host = SSHRemoteHost(session: try SSHSession.connect(to: server.hostConfig()), terminationGraceSeconds: 1)
        local = server.file("transfer")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        remote = "pipe-ssh-tests/\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        if let host, host.session.isConnected {
            _ = try host.capture(ShellQuote.join(["rm", "-rf", remote]))
            host.session.disconnect()
        }
        try? FileManager.default.removeItem(at: local)
    }

    /// A tree with a nested file, an executable, a symlink, an empty folder and a name that needs quoting.
    private func makeTree(at root: URL) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: root.appendingPathComponent("sub/deeper"), withIntermediateDirectories: true)
        try manager.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try "hello\n".write(to: root.appendingPathComponent("a.txt"), atomically: true, encoding: .utf8)
        var bytes = [UInt8](repeating: 0, count: 1_500_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 7919 >> 3) }
        try Data(bytes).write(to: root.appendingPathComponent("sub/deeper/blob.bin"))
        try "#!/bin/sh\necho run\n".write(to: root.appendingPathComponent("tool.sh"), atomically: true, encoding: .utf8)
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.appendingPathComponent("tool.sh").path)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: "a.txt")
        try "quoted\n".write(to: root.appendingPathComponent("it's $(odd) name.txt"), atomically: true, encoding: .utf8)
    }

    private func assertSameTree(_ expected: URL, _ actual: URL, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let manager = FileManager.default
        let names = try XCTUnwrap(manager.subpathsOfDirectory(atPath: expected.path)).sorted()
        XCTAssertEqual(try manager.subpathsOfDirectory(atPath: actual.path).sorted(), names, file: file, line: line)
        for name in names {
            let left = expected.appendingPathComponent(name)
            let right = actual.appendingPathComponent(name)
            let leftAttributes = try manager.attributesOfItem(atPath: left.path)
            let rightAttributes = try manager.attributesOfItem(atPath: right.path)
            XCTAssertEqual(
                leftAttributes[.type] as? FileAttributeType, rightAttributes[.type] as? FileAttributeType, name)
            switch leftAttributes[.type] as? FileAttributeType {
            case .typeSymbolicLink?:
                XCTAssertEqual(
                    try manager.destinationOfSymbolicLink(atPath: left.path),
                    try manager.destinationOfSymbolicLink(atPath: right.path), name, file: file, line: line)
            case .typeRegular?:
                XCTAssertEqual(try Data(contentsOf: left), try Data(contentsOf: right), name, file: file, line: line)
                XCTAssertEqual(
                    (leftAttributes[.posixPermissions] as? Int).map { $0 & 0o111 },
                    (rightAttributes[.posixPermissions] as? Int).map { $0 & 0o111 }, "exec bits of \(name)",
                    file: file, line: line)
            default:
                break
            }
        }
    }

    func testUploadThenDownloadKeepsTheTreeAndAgreesOnDigests() throws {
        let source = local.appendingPathComponent("source")
        try makeTree(at: source)
        let up = try host.upload(directory: source, to: remote + "/up")
        XCTAssertEqual(up.destination, remote + "/up")
        // The digest both ends agreed on is the digest of the stream tar makes of this folder.
        let localTar = try TestSSHServer.runData("/usr/bin/tar", ["-cf", "-", "-C", source.path, "."])
        XCTAssertEqual(up.sha256, SHA256Digest.hex(of: localTar))
        XCTAssertEqual(up.bytes, Int64(localTar.count))

        let listing = try host.capture("cd \(ShellQuote.quote(remote + "/up")) && ls -la tool.sh link && ls -d empty")
        XCTAssertEqual(listing.exit, .exited(0), listing.stderrText)
        XCTAssertTrue(listing.stdoutText.contains("-rwxr-xr-x"), listing.stdoutText)
        XCTAssertTrue(listing.stdoutText.contains("link -> a.txt"), listing.stdoutText)

        let into = local.appendingPathComponent("back")
        let down = try host.download(remote + "/up", into: into, cancellation: CancellationToken())
        XCTAssertEqual(down.destination, into.appendingPathComponent("up").path)
        XCTAssertEqual(down.sha256.count, 64)
        XCTAssertGreaterThan(down.bytes, 1_500_000)
        try assertSameTree(source, into.appendingPathComponent("up"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: into.path), ["up"], "no temporary left")
    }

    func testDownloadOfASingleFileByAbsolutePath() throws {
        let home = try host.capture("pwd").stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try host.capture(
            "mkdir -p \(ShellQuote.quote(remote)) && printf 'exit code 65' > \(ShellQuote.quote(remote + "/exit-code"))"
        )
        let down = try host.download(home + "/" + remote + "/exit-code", into: local, cancellation: CancellationToken())
        XCTAssertEqual(try String(contentsOf: URL(fileURLWithPath: down.destination), encoding: .utf8), "exit code 65")
    }

    func testPullBackRunsTheCommandBesideTheDownload() throws {
        let source = local.appendingPathComponent("source")
        try makeTree(at: source)
        _ = try host.upload(directory: source, to: remote + "/bundle.xcresult")
        let into = local.appendingPathComponent("into")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        // The command writes to stdout and stderr and exits 3: all of it comes back, apart from the transfer.
        let pulled = host.pullBack(
            remote + "/bundle.xcresult", into: into, cancellation: CancellationToken(),
            alongside: "ls \(ShellQuote.quote(remote)); echo side >&2; exit 3", commandTimeoutSeconds: 30)
        XCTAssertFalse(pulled.missing)
        let transfer = try pulled.transfer.get()
        XCTAssertEqual(transfer.destination, into.appendingPathComponent("bundle.xcresult").path)
        try assertSameTree(source, into.appendingPathComponent("bundle.xcresult"))
        let output = try XCTUnwrap(pulled.command).get()
        XCTAssertEqual(output.exit, .exited(3))
        XCTAssertEqual(output.stdoutText, "bundle.xcresult\n")
        XCTAssertEqual(output.stderrText, "side\n")
    }

    func testPullBackOfAMissingItemSaysSoAndStillRunsTheCommand() throws {
        let pulled = host.pullBack(
            remote + "/nothing.xcresult", into: local, cancellation: CancellationToken(), alongside: "echo summary",
            commandTimeoutSeconds: 30)
        XCTAssertTrue(pulled.missing)
        XCTAssertThrowsError(try pulled.transfer.get())
        XCTAssertEqual(try XCTUnwrap(pulled.command).get().stdoutText, "summary\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: local.path), [])
    }

    func testPullBackStopsACommandThatOutlivesItsTimeout() throws {
        _ = try host.capture("mkdir -p \(ShellQuote.quote(remote)) && printf x > \(ShellQuote.quote(remote + "/f"))")
        let pulled = host.pullBack(
            remote + "/f", into: local, cancellation: CancellationToken(), alongside: "sleep 29.127",
            commandTimeoutSeconds: 0.5)
        XCTAssertEqual(try pulled.transfer.get().bytes > 0, true)
        XCTAssertEqual(try XCTUnwrap(pulled.command).get().exit, .timedOut)
        let left = try host.capture("ps -A -o args= | grep -c '^sleep 29.127$' || true")
        XCTAssertEqual(left.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "0")
    }

    func testMissingRemotePathFailsAndLeavesNothing() throws {
        XCTAssertThrowsError(
            try host.download(remote + "/nothing.xcresult", into: local, cancellation: CancellationToken())
        ) {
            let error = $0 as? RemoteError
            XCTAssertEqual(error?.kind, .commandFailed)
            XCTAssertTrue(
                error?.message.contains("does not exist on the host") ?? false, "\(String(describing: error))")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: local.path), [])
    }

    func testCorruptedStreamIsRefusedAndLeavesNothing() throws {
        let source = local.appendingPathComponent("source")
        try makeTree(at: source)
        _ = try host.upload(directory: source, to: remote + "/bundle.xcresult")
        let into = local.appendingPathComponent("into")
        var flipped = false
        host.downloadChunkFault = { chunk in
            // One bit flipped in transit, after the host's digest: tar would still extract it.
            if !flipped && chunk.count > 2000 {
                chunk[1500] ^= 0x01
                flipped = true
            }
        }
        XCTAssertThrowsError(
            try host.download(remote + "/bundle.xcresult", into: into, cancellation: CancellationToken())
        ) {
            XCTAssertEqual(($0 as? RemoteError)?.kind, .transferCorrupt, "\($0)")
        }
        XCTAssertTrue(flipped)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: into.path), [], "nothing that looks whole")
    }

    func testInterruptedDownloadLeavesNothingAndStopsTheHostSide() throws {
        _ = try host.capture(
            "mkdir -p \(ShellQuote.quote(remote + "/big")) && head -c 67108864 /dev/zero > \(ShellQuote.quote(remote + "/big/data"))",
            stdin: nil, timeoutSeconds: 60)
        let token = CancellationToken()
        var received = 0
        host.downloadChunkFault = { chunk in
            received += chunk.count
            if received > 4_000_000 { token.cancel(reason: "test interrupt") }
        }
        XCTAssertThrowsError(try host.download(remote + "/big", into: local, cancellation: token)) {
            let error = $0 as? RemoteError
            XCTAssertEqual(error?.kind, .transferCorrupt)
            XCTAssertTrue(error?.message.contains("test interrupt") ?? false, "\(String(describing: error))")
        }
        XCTAssertLessThan(received, 67_108_864)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: local.path), [])
        let tars = try host.capture("ps -A -o stat= -o args= | grep 'tar -cf' | grep -v grep | grep -v '^Z' || true")
        XCTAssertEqual(tars.stdoutText, "", "the host's tar was stopped")
    }

    func testDownloadNeverOverwrites() throws {
        _ = try host.capture(
            "mkdir -p \(ShellQuote.quote(remote + "/log")) && echo new > \(ShellQuote.quote(remote + "/log/out.txt"))")
        let existing = local.appendingPathComponent("log")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        XCTAssertThrowsError(try host.download(remote + "/log", into: local, cancellation: CancellationToken())) {
            XCTAssertTrue("\($0)".contains("already exists"), "\($0)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: existing.path), [])
    }

    func testDownloadMemoryStaysFlat() throws {
        let size = 160 * 1024 * 1024
        _ = try host.capture(
            "mkdir -p \(ShellQuote.quote(remote)) && head -c \(size) /dev/urandom > \(ShellQuote.quote(remote + "/large.bin"))",
            stdin: nil, timeoutSeconds: 120)
        let before = residentBytes()
        var peak = before
        var chunks = 0
        host.downloadChunkFault = { _ in
            chunks += 1
            if chunks % 64 == 0 { peak = max(peak, self.residentBytes()) }
        }
        let summary = try host.download(remote + "/large.bin", into: local, cancellation: CancellationToken())
        // One 512-byte header and two end-of-archive blocks, padded to tar's 10240-byte records.
        XCTAssertEqual(summary.bytes, Int64((size + 1536 + 10239) / 10240 * 10240))
        XCTAssertLessThan(peak - before, 48 * 1024 * 1024, "resident memory grew by \((peak - before) >> 20) MiB")
        print(
            "PipeSSH: downloaded \(size >> 20) MiB in \(String(format: "%.2f", summary.seconds)) s "
                + "(\(Int(Double(size >> 20) / summary.seconds)) MiB/s), resident growth \((peak - before) >> 20) MiB")
    }

    func testUploadOfMissingFolderFails() {
        XCTAssertThrowsError(try host.upload(directory: local.appendingPathComponent("absent"), to: remote)) {
            XCTAssertTrue("\($0)".contains("is not a folder"), "\($0)")
        }
    }

    func testUploadWhereTheHostCannotWriteSaysSo() throws {
        let source = local.appendingPathComponent("source")
        try makeTree(at: source)
        XCTAssertThrowsError(try host.upload(directory: source, to: "/root/pipe-denied/x")) {
            let error = $0 as? RemoteError
            XCTAssertEqual(error?.kind, .commandFailed)
            XCTAssertTrue(
                error?.message.contains("the host's side ended with 1") ?? false, "\(String(describing: error))")
            XCTAssertTrue(error?.message.contains("Permission denied") ?? false, "\(String(describing: error))")
        }
        XCTAssertTrue(host.session.isConnected)
    }

    func testFullDiskOnTheHostIsReportedAsSuch() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to mount a 1 MiB tmpfs as the host's full disk") }
        let mountPoint = server.file("full")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        try TestSSHServer.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path])
        defer {
            _ = try? TestSSHServer.run("/usr/bin/umount", [mountPoint.path])
            try? FileManager.default.removeItem(at: mountPoint)
        }
        try TestSSHServer.run("/usr/bin/chown", [server.user, mountPoint.path])
        let source = local.appendingPathComponent("source")
        try makeTree(at: source)  // 1.5 MB: more than the disk holds
        XCTAssertThrowsError(try host.upload(directory: source, to: mountPoint.path + "/workspace")) {
            let error = $0 as? RemoteError
            XCTAssertEqual(error?.kind, .diskFull, "\(String(describing: error))")
        }
    }

    func testRemotePathSplitting() throws {
        XCTAssertTrue(try SSHRemoteHost.split("a/b/c.xcresult", host: "h") == ("a/b", "c.xcresult"))
        XCTAssertTrue(try SSHRemoteHost.split("/abs/x/", host: "h") == ("/abs", "x"))
        XCTAssertTrue(try SSHRemoteHost.split("/x", host: "h") == ("/", "x"))
        XCTAssertTrue(try SSHRemoteHost.split("name", host: "h") == (".", "name"))
        for bad in ["", "/", "a/..", "."] {
            XCTAssertThrowsError(try SSHRemoteHost.split(bad, host: "h"), bad)
        }
    }

    private func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}

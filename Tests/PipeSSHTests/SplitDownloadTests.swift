import Foundation
import PipeBasics
import PipeCore
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// Downloads split across two sessions in two threads, against an emulated Mac host (`scripts/mac-host`: its PATH
/// has only a stock macOS's tools, so the plan is made with those): what arrives is the whole folder or nothing.
final class SplitDownloadTests: XCTestCase {
    private static let emulated = SharedEmulatedMacHost(name: "mac-split", statePrefix: "pipe-split-host")

    private var scratch: TemporaryDirectory!
    private var config: HostConfig!
    private var host: SSHRemoteHost!
    /// Per-test folder on the host, under /tmp, which the host's login can write to.
    private var remote: String!
    private let opened = Counter()
    private var listsBefore = Set<Substring>()

    override class func tearDown() {
        emulated.stop()
    }

    override func setUpWithError() throws {
        let emulated = try Self.emulated.get()
        scratch = try TemporaryDirectory(prefix: "pipe-split")
        remote = "/tmp/pipe-split-\(UUID().uuidString.prefix(8))"
        config = emulated.hostConfig(workDirectory: remote)
        host = SSHRemoteHost(session: try SSHSession.connect(to: config), terminationGraceSeconds: 1)
        let (config, opened) = (config!, opened)
        host.secondSessionForDownloads = {
            opened.increment()
            return try SSHSession.connect(to: config)
        }
        host.splitDownloadMinimumBytes = 1 << 20
        listsBefore = try newHostPlanLists()
    }

    override func tearDownWithError() throws {
        if let host, host.session.isConnected {
            _ = try host.capture(ShellQuote.join(["rm", "-rf", remote]))
            host.session.disconnect()
        }
        scratch?.remove()
    }

    /// A result bundle's shape: big blobs, many small files, an executable, a symlink, an empty folder, a name that
    /// needs quoting. Uploaded to `<remote>/R.xcresult`.
    private func uploadBundle() throws -> URL {
        let root = scratch.url.appendingPathComponent("source/R.xcresult")
        let manager = FileManager.default
        try manager.createDirectory(at: root.appendingPathComponent("Data/empty"), withIntermediateDirectories: true)
        for (index, size) in [1_400_000, 1_100_000, 700_000].enumerated() {
            var bytes = [UInt8](repeating: 0, count: size)
            for offset in bytes.indices { bytes[offset] = UInt8(truncatingIfNeeded: (offset &* 31) ^ index) }
            try Data(bytes).write(to: root.appendingPathComponent("Data/blob\(index)"))
        }
        for index in 0..<150 {
            try Data("object \(index)\n".utf8).write(to: root.appendingPathComponent("Data/data.0~\(index)"))
        }
        try Data("#!/bin/sh\n".utf8).write(to: root.appendingPathComponent("tool.sh"))
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.appendingPathComponent("tool.sh").path)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: "Data")
        try Data("q\n".utf8).write(to: root.appendingPathComponent("it's $(odd).txt"))
        _ = try host.upload(directory: root.deletingLastPathComponent(), to: remote)
        return root
    }

    private func assertSameTree(_ expected: URL, _ actual: URL, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let manager = FileManager.default
        let names = try manager.subpathsOfDirectory(atPath: expected.path).sorted()
        XCTAssertEqual(try manager.subpathsOfDirectory(atPath: actual.path).sorted(), names, file: file, line: line)
        for name in names {
            let left = try manager.attributesOfItem(atPath: expected.appendingPathComponent(name).path)
            let right = try manager.attributesOfItem(atPath: actual.appendingPathComponent(name).path)
            XCTAssertEqual(
                left[.type] as? FileAttributeType, right[.type] as? FileAttributeType, name, file: file, line: line)
            XCTAssertEqual(
                left[.posixPermissions] as? Int, right[.posixPermissions] as? Int, name, file: file, line: line)
            if left[.type] as? FileAttributeType == .typeRegular {
                XCTAssertEqual(
                    try Data(contentsOf: expected.appendingPathComponent(name)),
                    try Data(contentsOf: actual.appendingPathComponent(name)), name, file: file, line: line)
            }
        }
    }

    /// The plan lists in the host's /tmp that were not there when the test began.
    private func newHostPlanLists() throws -> Set<Substring> {
        try host.capture("find /tmp -maxdepth 1 -name 'pipe-part.*'").stdoutText.split(separator: "\n").reduce(
            into: Set<Substring>()
        ) { $0.insert($1) }.subtracting(listsBefore)
    }

    func testABigFolderComesBackOverTwoSessionsWhole() throws {
        let source = try uploadBundle()
        let into = scratch.url.appendingPathComponent("into")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        let summary = try host.download(remote + "/R.xcresult", into: into, cancellation: CancellationToken())
        XCTAssertEqual(summary.streams, 2)
        XCTAssertEqual(summary.sessions, 2)
        XCTAssertEqual(opened.value, 1)
        XCTAssertGreaterThan(summary.bytes, 3_200_000)
        XCTAssertEqual(summary.sha256.count, 64)
        try assertSameTree(source, into.appendingPathComponent("R.xcresult"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: into.path), ["R.xcresult"])
        XCTAssertEqual(try newHostPlanLists(), [], "the host's plan lists are removed")
    }

    func testASmallFolderStaysOneStreamAndOpensNoSecondSession() throws {
        let source = try uploadBundle()
        host.splitDownloadMinimumBytes = 32 << 20
        let summary = try host.download(remote + "/R.xcresult", into: scratch.url, cancellation: CancellationToken())
        XCTAssertEqual(summary.streams, 1)
        XCTAssertEqual(summary.sessions, 1)
        XCTAssertEqual(opened.value, 0)
        try assertSameTree(source, scratch.url.appendingPathComponent("R.xcresult"))
    }

    func testWithoutASecondSessionBothPartsComeOverTheFirst() throws {
        let source = try uploadBundle()
        host.secondSessionForDownloads = {
            throw RemoteError(.unreachable, host: "mac-split", "no second login in this test")
        }
        let summary = try host.download(remote + "/R.xcresult", into: scratch.url, cancellation: CancellationToken())
        XCTAssertEqual(summary.streams, 2)
        XCTAssertEqual(summary.sessions, 1)
        try assertSameTree(source, scratch.url.appendingPathComponent("R.xcresult"))
    }

    func testADamagedPartIsRefusedAndLeavesNothing() throws {
        _ = try uploadBundle()
        let flips = Counter()
        host.downloadChunkFault = { chunk in
            // One bit flipped in transit in each stream's first big chunk, after the host's digest.
            if chunk.count > 2000 && flips.value < 2 {
                chunk[1500] ^= 0x01
                flips.increment()
            }
        }
        XCTAssertThrowsError(
            try host.download(remote + "/R.xcresult", into: scratch.url, cancellation: CancellationToken())
        ) {
            XCTAssertEqual(($0 as? RemoteError)?.kind, .transferCorrupt, "\($0)")
        }
        XCTAssertGreaterThan(flips.value, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path), ["source"])
        XCTAssertEqual(try newHostPlanLists(), [])
    }

    func testAFolderThatChangesBetweenTheTwoPlansIsRefused() throws {
        _ = try uploadBundle()
        let (config, remote) = (config!, remote!)
        // The second session is opened once the first part has planned: a file added meanwhile changes the
        // second part's plan.
        host.secondSessionForDownloads = {
            let session = try SSHSession.connect(to: config)
            let writer = SSHRemoteHost(session: session)
            _ = try writer.capture(
                "echo late > \(ShellQuote.quote(remote + "/R.xcresult/late"))", stdin: nil, timeoutSeconds: 30)
            return session
        }
        XCTAssertThrowsError(
            try host.download(remote + "/R.xcresult", into: scratch.url, cancellation: CancellationToken())
        ) {
            XCTAssertEqual(($0 as? RemoteError)?.kind, .transferCorrupt, "\($0)")
            XCTAssertTrue(($0 as? RemoteError)?.message.contains("changed on the host") ?? false, "\($0)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path), ["source"])
    }

    func testCancellingASplitDownloadStopsBothPartsAndLeavesNothing() throws {
        // Written here (the host shares this machine), readable by the host's login: four 32 MiB files.
        let shared = URL(fileURLWithPath: "/tmp/pipe-split-big-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: shared) }
        let big = shared.appendingPathComponent("big")
        try FileManager.default.createDirectory(at: big, withIntermediateDirectories: true)
        for number in 1...4 { try Data(count: 32 << 20).write(to: big.appendingPathComponent("data\(number)")) }
        for folder in [shared, big] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        }
        let token = CancellationToken()
        let received = Counter()
        host.downloadChunkFault = { chunk in
            received.add(chunk.count)
            if received.value > 8_000_000 { token.cancel(reason: "test interrupt") }
        }
        XCTAssertThrowsError(try host.download(big.path, into: scratch.url, cancellation: token)) {
            XCTAssertEqual(($0 as? RemoteError)?.kind, .transferCorrupt, "\($0)")
        }
        XCTAssertEqual(opened.value, 1, "the download was split")
        XCTAssertLessThan(received.value, 134_217_728)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path), [])
        // The pattern is quoted in two pieces so that this very command does not match it.
        let tars = try host.capture(
            "ps -A -o stat= -o args= | while read s a; do case $s in Z*) continue;; esac; "
                + "case $a in *'tar -c''f'*) echo \"$a\";; esac; done")
        XCTAssertEqual(tars.stdoutText, "", "both of the host's tars were stopped")
        XCTAssertEqual(try newHostPlanLists(), [])
    }
}

/// A count shared with the second part's thread.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { add(1) }
    func add(_ amount: Int) { lock.withLock { count += amount } }
}

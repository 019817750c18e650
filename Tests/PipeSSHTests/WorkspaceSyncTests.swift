import Foundation
import PipeBasics
import PipeCore
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// Workspace syncs against an emulated Mac host (`scripts/mac-host`): a real sshd whose PATH has only the tools a
/// stock macOS has, so the host side of the sync is checked against that tool set too.
final class WorkspaceSyncTests: XCTestCase {
    private static let emulated = SharedEmulatedMacHost(name: "mac-sync", statePrefix: "pipe-sync-host")

    private var scratch: TemporaryDirectory!
    private var workDirectory: String!
    private var host: SSHRemoteHost!

    override class func tearDown() {
        emulated.stop()
    }

    override func setUpWithError() throws {
        let emulated = try Self.emulated.get()
        scratch = try TemporaryDirectory(prefix: "pipe-sync")
        // Under /tmp, which the host's login can write to: the host and this test share the machine.
        workDirectory = "/tmp/pipe-sync-work-\(UUID().uuidString.prefix(8))"
        host = try connect(emulated)
    }

    override func tearDownWithError() throws {
        if let host, host.session.isConnected {
            _ = try host.capture(ShellQuote.join(["rm", "-rf", workDirectory]))
            host.session.disconnect()
        }
        scratch?.remove()
    }

    private func connect(_ emulated: EmulatedMacHost) throws -> SSHRemoteHost {
        let config = emulated.hostConfig(workDirectory: workDirectory)
        return SSHRemoteHost(session: try SSHSession.connect(to: config), terminationGraceSeconds: 1)
    }

    private func runFolder(_ name: String) -> String { "\(workDirectory!)/runs/\(name)/workspace" }

    // MARK: - Trees

    private func write(_ text: String, _ path: String, in root: URL, mode: Int? = nil) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        if let mode { try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path) }
    }

    /// Nested files, an executable, a symlink, an empty folder, a name that needs quoting, a path over 100 bytes.
    private func makeTree(at root: URL) throws {
        try write("hello\n", "a.txt", in: root)
        try write(String(repeating: "line of source\n", count: 5_000), "Sources/App/Big.swift", in: root)
        try write("#!/bin/sh\necho run\n", "scripts/tool.sh", in: root, mode: 0o755)
        try write("quoted\n", "it's $(odd) name.txt", in: root)
        try write("deep\n", String(repeating: "long-folder-name/", count: 8) + "file.txt", in: root)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("empty/inner"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("link").path, withDestinationPath: "a.txt")
    }

    /// Downloads a run folder and compares it with `expected`: names, kinds, link targets, contents, exec bits.
    private func assertRunFolder(
        _ remote: String, equals expected: URL, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        // The emulated host's disk is this machine's: its copy is read where it lies, links that lead out of it
        // included (a pull-back refuses those).
        let actual = URL(fileURLWithPath: remote)
        let manager = FileManager.default
        let names = try manager.subpathsOfDirectory(atPath: expected.path).sorted()
        XCTAssertEqual(try manager.subpathsOfDirectory(atPath: actual.path).sorted(), names, file: file, line: line)
        for name in names {
            let left = try manager.attributesOfItem(atPath: expected.appendingPathComponent(name).path)
            let right = try manager.attributesOfItem(atPath: actual.appendingPathComponent(name).path)
            let type = left[.type] as? FileAttributeType
            XCTAssertEqual(type, right[.type] as? FileAttributeType, name, file: file, line: line)
            if type == .typeSymbolicLink {
                XCTAssertEqual(
                    try manager.destinationOfSymbolicLink(atPath: expected.appendingPathComponent(name).path),
                    try manager.destinationOfSymbolicLink(atPath: actual.appendingPathComponent(name).path), name,
                    file: file, line: line)
            } else if type == .typeRegular {
                XCTAssertEqual(
                    try Data(contentsOf: expected.appendingPathComponent(name)),
                    try Data(contentsOf: actual.appendingPathComponent(name)), name, file: file, line: line)
                XCTAssertEqual(
                    (left[.posixPermissions] as? Int).map { $0 & 0o111 },
                    (right[.posixPermissions] as? Int).map { $0 & 0o111 }, "exec bits of \(name)", file: file,
                    line: line)
            }
        }
    }

    // MARK: - Tests

    func testFirstSyncSendsEverythingThenOnlyWhatChanged() throws {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        let first = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("one"))
        XCTAssertEqual(first.kind, .full)
        XCTAssertEqual(first.entriesSent, first.entries)
        XCTAssertGreaterThan(first.transfer.bytes, 75_000)
        try assertRunFolder(runFolder("one"), equals: local)

        try write("hello, changed\n", "a.txt", in: local)
        try write("new\n", "Sources/App/New.swift", in: local)
        let second = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("two"))
        XCTAssertEqual(second.kind, .delta)
        XCTAssertEqual(second.entriesSent, 2)
        XCTAssertEqual(second.pathsDeleted, 0)
        // Two small files, their headers, the manifest and tar's padding to one 10 KiB record; not the 75 KB file.
        XCTAssertLessThanOrEqual(second.transfer.bytes, 10_240)
        try assertRunFolder(runFolder("two"), equals: local)

        let third = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("three"))
        XCTAssertEqual(third.kind, .delta)
        XCTAssertEqual(third.entriesSent, 0)
    }

    /// `compression: gzip`: the archive goes through zlib and the host's `gzip -dc`, in full and as a delta, and the
    /// copy is the same; 700 KB of random bytes make the compressed stream span several of the producer's chunks.
    func testACompressedSyncGivesTheSameCopyWithFewerBytes() throws {
        var config = try Self.emulated.get().hostConfig(workDirectory: workDirectory)
        config.uploadCompression = .gzip
        let compressing = SSHRemoteHost(session: try SSHSession.connect(to: config), terminationGraceSeconds: 1)
        defer { compressing.session.disconnect() }
        let local = try makeCompressibleTree()
        let plain = try host.synchronizeWorkspace(directory: local, cacheKey: "plain", to: runFolder("plain"))
        XCTAssertEqual(plain.compression, .none, "auto on loopback: the link is faster than zlib")
        try assertCompressedSyncs(through: compressing, of: local, as: .gzip, plainBytes: plain.transfer.bytes)
    }

    /// `compression: zstd`: on a host without `zstd` (a stock Mac) the archive goes as gzip; on one with it (here
    /// linked into the host's PATH for this test, as a Homebrew install would be) through libzstd and the host's
    /// `zstd -dc`, in full and as a delta, and the copy is the same.
    func testAZstdSyncGoesAsZstdWhereTheHostHasItAndAsGzipWhereNot() throws {
        let emulated = try Self.emulated.get()
        var config = emulated.hostConfig(workDirectory: workDirectory)
        config.uploadCompression = .zstd
        let local = try makeCompressibleTree()
        let plain = try host.synchronizeWorkspace(directory: local, cacheKey: "plain", to: runFolder("plain"))

        let stock = SSHRemoteHost(session: try SSHSession.connect(to: config), terminationGraceSeconds: 1)
        defer { stock.session.disconnect() }
        let fallback = try stock.synchronizeWorkspace(directory: local, cacheKey: "stock", to: runFolder("stock"))
        XCTAssertEqual(fallback.compression, .gzip, "a stock Mac has no zstd")
        try assertRunFolder(runFolder("stock"), equals: local)

        let link = emulated.stateDirectory.appendingPathComponent("bin/zstd")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/usr/bin/zstd")
        defer { try? FileManager.default.removeItem(at: link) }
        let compressing = SSHRemoteHost(session: try SSHSession.connect(to: config), terminationGraceSeconds: 1)
        defer { compressing.session.disconnect() }
        try assertCompressedSyncs(through: compressing, of: local, as: .zstd, plainBytes: plain.transfer.bytes)
    }

    /// `makeTree` and 700 KB of random bytes, which make a compressed stream span several of the producer's chunks.
    private func makeCompressibleTree() throws -> URL {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        var generator = SystemRandomNumberGenerator()
        try Data((0..<700_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            .write(to: local.appendingPathComponent("random.bin"))
        return local
    }

    /// A full sync of `local` and then a delta (one file changed, one added) go `compression`, smaller than the
    /// `plainBytes` an uncompressed full sync sent, and leave run folders equal to `local`.
    private func assertCompressedSyncs(
        through compressing: SSHRemoteHost, of local: URL, as compression: ArchiveCompression, plainBytes: Int64
    ) throws {
        let first = try compressing.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("one"))
        XCTAssertEqual(first.kind, .full)
        XCTAssertEqual(first.compression, compression)
        XCTAssertLessThan(first.transfer.bytes, plainBytes - 70_000, "the 75 KB of repeated lines shrink")
        try assertRunFolder(runFolder("one"), equals: local)

        try write(String(repeating: "changed line\n", count: 10_000), "Sources/App/Big.swift", in: local)
        try write("new\n", "Sources/App/New.swift", in: local)
        let second = try compressing.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("two"))
        XCTAssertEqual(second.kind, .delta)
        XCTAssertEqual(second.entriesSent, 2)
        XCTAssertEqual(second.compression, compression)
        try assertRunFolder(runFolder("two"), equals: local)
    }

    func testDeletionsAndKindChangesReachTheCopy() throws {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        _ = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("one"))

        let manager = FileManager.default
        try manager.removeItem(at: local.appendingPathComponent("it's $(odd) name.txt"))
        try manager.removeItem(at: local.appendingPathComponent("long-folder-name"))
        try manager.removeItem(at: local.appendingPathComponent("scripts"))
        try write("now a file\n", "scripts", in: local)
        try manager.removeItem(at: local.appendingPathComponent("empty/inner"))
        try write("now a folder\n", "empty/inner/file.txt", in: local)
        try manager.removeItem(at: local.appendingPathComponent("a.txt"))
        try manager.createSymbolicLink(
            atPath: local.appendingPathComponent("a.txt").path, withDestinationPath: "Sources/App/Big.swift")
        try manager.removeItem(at: local.appendingPathComponent("link"))
        try write("was a link\n", "link", in: local)
        try manager.setAttributes(
            [.posixPermissions: 0o755], ofItemAtPath: local.appendingPathComponent("Sources/App/Big.swift").path)

        let second = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("two"))
        XCTAssertEqual(second.kind, .delta)
        // The quoted file, the long folder (once, with what is in it), the folder `scripts`, the file `a.txt`, the
        // link `link`; `empty/inner` stays a folder and only gains a file.
        XCTAssertEqual(second.pathsDeleted, 5)
        try assertRunFolder(runFolder("two"), equals: local)
    }

    func testASymlinkPointingOutsideIsSentAsALinkAndNeverFollowed() throws {
        let outside = scratch.appending("outside")
        try write(String(repeating: "secret\n", count: 20_000), "secret.txt", in: outside)
        let local = scratch.appending("workspace")
        try write("hello\n", "a.txt", in: local)
        try FileManager.default.createSymbolicLink(
            atPath: local.appendingPathComponent("escape").path, withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(
            atPath: local.appendingPathComponent("up").path, withDestinationPath: "../outside/secret.txt")
        let first = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("one"))
        XCTAssertLessThan(first.transfer.bytes, 20_000, "the 140 KB file outside must not travel")
        try assertRunFolder(runFolder("one"), equals: local)

        // The copy on the host has `escape` as a link to a folder outside; turning it into a real folder must
        // write into the copy, never through the old link into the folder it pointed at.
        let hostOutside = "\(workDirectory!)/outside-on-host"
        XCTAssertEqual(try host.capture(ShellQuote.join(["mkdir", "-p", hostOutside])).exit, .exited(0))
        try FileManager.default.removeItem(at: local.appendingPathComponent("escape"))
        try FileManager.default.createSymbolicLink(
            atPath: local.appendingPathComponent("escape").path, withDestinationPath: hostOutside)
        _ = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("two"))
        try FileManager.default.removeItem(at: local.appendingPathComponent("escape"))
        try write("inside\n", "escape/planted.txt", in: local)
        _ = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("three"))
        try assertRunFolder(runFolder("three"), equals: local)
        let listing = try host.capture(ShellQuote.join(["find", hostOutside]))
        XCTAssertEqual(listing.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), hostOutside)
    }

    func testTheRunFolderIsACopyThatNeverChangesTheCache() throws {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        _ = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("one"))
        // A build editing files in place, and removing one, in its run folder.
        let edit = ShellQuote.join([
            "/bin/sh", "-c", "printf edited >> \"$1/a.txt\" && rm \"$1/scripts/tool.sh\"", "edit", runFolder("one"),
        ])
        XCTAssertEqual(try host.capture(edit).exit, .exited(0))

        let second = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("two"))
        XCTAssertEqual(second.kind, .delta)
        XCTAssertEqual(second.entriesSent, 0)
        try assertRunFolder(runFolder("two"), equals: local)
    }

    func testCommandsRunBesideTheSyncAndEachReportsItsOwnResult() throws {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        let workspace = runFolder("together")
        // The first command ends only once the sync has cloned the workspace: run one after the other, it would wait
        // until its deadline and time out.
        let waitsForTheSync =
            "i=0; until [ -f \(ShellQuote.quote(workspace + "/a.txt")) ]; do sleep 0.05; "
            + "i=$((i+1)); [ $i -lt 200 ] || exit 9; done; echo saw it"
        let together = host.captureTogether(
            [waitsForTheSync, "echo to stderr >&2; exit 3", "pwd"], timeoutSeconds: 10,
            syncing: WorkspaceSyncRequest(directory: local, cacheKey: "repo", remoteDirectory: workspace))
        let outputs = try together.outputs.map { try $0.get() }
        XCTAssertEqual(outputs[0].exit, .exited(0), outputs[0].stderrText)
        XCTAssertEqual(outputs[0].stdoutText, "saw it\n")
        XCTAssertEqual(outputs[1].exit, .exited(3))
        XCTAssertEqual(outputs[1].stderrText, "to stderr\n")
        XCTAssertTrue(outputs[2].stdoutText.hasPrefix("/"), outputs[2].stdoutText)
        let synced = try XCTUnwrap(together.sync).get()
        XCTAssertEqual(synced.destination, workspace)
        try assertRunFolder(workspace, equals: local)
        // The memory of what was sent works as after a sync on its own: the next one sends nothing.
        let next = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("after"))
        XCTAssertEqual(next.kind, .delta)
        XCTAssertEqual(next.entriesSent, 0)
    }

    func testASyncThatCannotStartFailsAloneAndTheCommandsStillRun() throws {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        XCTAssertEqual(mkfifo(local.appendingPathComponent("pipe-fifo").path, 0o644), 0)
        let together = host.captureTogether(
            ["echo first", "echo second"], timeoutSeconds: 10,
            syncing: WorkspaceSyncRequest(directory: local, cacheKey: "repo", remoteDirectory: runFolder("fifo")))
        XCTAssertEqual(try together.outputs.map { try $0.get().stdoutText }, ["first\n", "second\n"])
        XCTAssertThrowsError(try XCTUnwrap(together.sync).get()) { error in
            XCTAssertTrue("\(error)".contains("pipe-fifo is neither a file"), "\(error)")
        }
        // The host's side was stopped and let go of the cache's lock: the next sync of the cache goes through.
        try FileManager.default.removeItem(at: local.appendingPathComponent("pipe-fifo"))
        _ = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("after"))
        try assertRunFolder(runFolder("after"), equals: local)
    }

    func testARunFolderThatExistsIsRefusedBeforeAnythingIsSent() throws {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        let existing = runFolder("one")
        _ = try host.capture(ShellQuote.join(["mkdir", "-p", existing + "/something"]))
        XCTAssertThrowsError(try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: existing)) { error in
            XCTAssertTrue("\(error)".contains("already exists"), "\(error)")
        }
        XCTAssertThrowsError(try host.synchronizeWorkspace(directory: local, cacheKey: "../x", to: runFolder("two")))
    }

    func testTwoConcurrentSyncsOfOneCacheStayConsistent() throws {
        let emulated = try Self.emulated.get()
        let left = scratch.appending("left")
        let right = scratch.appending("right")
        try makeTree(at: left)
        try makeTree(at: right)
        try write("only on the right\n", "right.txt", in: right)
        try FileManager.default.removeItem(at: right.appendingPathComponent("a.txt"))
        let other = try connect(emulated)
        defer { other.session.disconnect() }

        for round in 0..<3 {
            let errors = ErrorList()
            let group = DispatchGroup()
            for (index, (remote, tree)) in [(host!, left), (other, right)].enumerated() {
                group.enter()
                Thread.detachNewThread { [self] in
                    defer { group.leave() }
                    do {
                        _ = try remote.synchronizeWorkspace(
                            directory: tree, cacheKey: "shared", to: runFolder("r\(round)-\(index)"))
                    } catch {
                        errors.append("\(error)")
                    }
                }
            }
            XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
            XCTAssertEqual(errors.all, [])
            try assertRunFolder(runFolder("r\(round)-0"), equals: left)
            try assertRunFolder(runFolder("r\(round)-1"), equals: right)
        }
        // Whichever went last left a copy whose manifest is true: a further sync sends only the difference.
        let after = try host.synchronizeWorkspace(directory: left, cacheKey: "shared", to: runFolder("after"))
        XCTAssertEqual(after.kind, .delta)
        XCTAssertLessThanOrEqual(after.entriesSent, 1)
        try assertRunFolder(runFolder("after"), equals: left)
    }

    func testACopyLeftDirtyByASyncThatDiedIsRebuiltAndItsLeftoversGo() throws {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        _ = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("one"))
        let cache = workDirectory + "/cache/repo"
        // What a sync killed after its request leaves: the dirty mark, and files an older Pipe's sync left.
        let damage = try host.capture(
            ShellQuote.join([
                "/bin/sh", "-c",
                "echo dirty >\"$1/manifest.id\" && echo x >\"$1/manifest.base\" "
                    + "&& echo x >\"$1/manifest.incoming.old\"", "damage", cache,
            ]))
        XCTAssertEqual(damage.exit, .exited(0), damage.stderrText)
        try write("changed\n", "a.txt", in: local)
        let after = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("two"))
        XCTAssertEqual(after.kind, .full, "a dirty copy is never trusted")
        try assertRunFolder(runFolder("two"), equals: local)
        let listing = try host.capture(ShellQuote.join(["find", cache, "-maxdepth", "1", "-name", "manifest*"]))
        XCTAssertEqual(
            listing.stdoutText.split(separator: "\n").map { $0.split(separator: "/").last.map(String.init) ?? "" }
                .sorted(), ["manifest", "manifest.id"])
        // And the rebuilt copy is trusted again: the next change goes as a delta.
        try write("changed again\n", "a.txt", in: local)
        XCTAssertEqual(try syncChecked(local, "three").kind, .delta)
    }

    // MARK: - What the coordinator remembers (WorkspaceSyncMemory)

    /// A host with a memory of its own: another coordinator, or (same state folder) a new process of this one.
    private func coordinator(stateFolder: URL?) throws -> SSHRemoteHost {
        let remote = try connect(try Self.emulated.get())
        remote.syncMemory = WorkspaceSyncMemory(digests: WorkspaceDigestCache(settleSeconds: -1))
        remote.syncStateDirectory = stateFolder
        return remote
    }

    private var cacheFolder: String { workDirectory + "/cache/repo" }

    /// A local tree, synced once (into the run folder `one`): the host's cache `repo` holds it.
    private func treeInTheCache() throws -> URL {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        let first = try host.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("one"))
        XCTAssertTrue(first.hostSentManifest)
        return local
    }

    /// Syncs `local` into the run folder `name` (cache `repo`) and checks that folder against `local`.
    private func syncChecked(_ local: URL, _ name: String, on remote: SSHRemoteHost? = nil) throws
        -> WorkspaceSyncReport
    {
        let report = try (remote ?? host).synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder(name))
        try assertRunFolder(runFolder(name), equals: local)
        return report
    }

    func testTheHostConfirmsTheRememberedManifestInsteadOfSendingIt() throws {
        let local = try treeInTheCache()
        try write("changed\n", "a.txt", in: local)
        let second = try syncChecked(local, "two")
        XCTAssertFalse(second.hostSentManifest, "the host still holds what this coordinator sent last")
        XCTAssertEqual(second.kind, .delta)
        XCTAssertEqual(second.entriesSent, 1)
    }

    func testARemovedHostCacheIsNoticedAndEverythingIsSentAgain() throws {
        let local = try treeInTheCache()
        XCTAssertEqual(try host.capture(ShellQuote.join(["rm", "-rf", cacheFolder])).exit, .exited(0))
        let second = try syncChecked(local, "two")
        XCTAssertEqual(second.kind, .full)
        XCTAssertEqual(second.entriesSent, second.entries)
    }

    func testAnotherCoordinatorsSyncMakesTheRememberedManifestStale() throws {
        let mine = scratch.appending("mine")
        let theirs = scratch.appending("theirs")
        try makeTree(at: mine)
        try makeTree(at: theirs)
        try write("theirs\n", "a.txt", in: theirs)
        try write("only theirs\n", "theirs.txt", in: theirs)
        try FileManager.default.removeItem(at: theirs.appendingPathComponent("scripts/tool.sh"))
        let me = try coordinator(stateFolder: nil)
        let other = try coordinator(stateFolder: nil)
        defer {
            me.session.disconnect()
            other.session.disconnect()
        }
        _ = try me.synchronizeWorkspace(directory: mine, cacheKey: "repo", to: runFolder("one"))
        let theirSync = try other.synchronizeWorkspace(directory: theirs, cacheKey: "repo", to: runFolder("two"))
        XCTAssertTrue(theirSync.hostSentManifest, "the other coordinator remembered nothing")
        // My memory says the cache holds `mine`; it holds `theirs`: a delta against my memory would keep
        // theirs.txt and lose scripts/tool.sh.
        let again = try syncChecked(mine, "three", on: me)
        XCTAssertTrue(again.hostSentManifest, "the host's token differs from the remembered one")
        XCTAssertEqual(again.kind, .delta)
    }

    func testADamagedOrMissingTokenOnTheHostFallsBackToTheHostsManifest() throws {
        let local = try treeInTheCache()
        let damage = ShellQuote.join([
            "/bin/sh", "-c", "echo not-the-token > \"$1/manifest.id\"", "damage", cacheFolder,
        ])
        XCTAssertEqual(try host.capture(damage).exit, .exited(0))
        try write("changed\n", "a.txt", in: local)
        let second = try syncChecked(local, "two")
        XCTAssertTrue(second.hostSentManifest)
        XCTAssertEqual(second.entriesSent, 1)

        XCTAssertEqual(try host.capture(ShellQuote.join(["rm", cacheFolder + "/manifest.id"])).exit, .exited(0))
        let third = try syncChecked(local, "three")
        XCTAssertTrue(third.hostSentManifest)
        XCTAssertEqual(third.entriesSent, 0)
    }

    func testANewProcessStartsFromTheStateFolderAndIgnoresADamagedOne() throws {
        let local = scratch.appending("workspace")
        try makeTree(at: local)
        let state = scratch.appending("state")
        let first = try coordinator(stateFolder: state)
        defer { first.session.disconnect() }
        _ = try first.synchronizeWorkspace(directory: local, cacheKey: "repo", to: runFolder("one"))

        // A new process: nothing in memory, the same state folder. Neither the manifest nor a digest is needed.
        let second = try coordinator(stateFolder: state)
        defer { second.session.disconnect() }
        try write("changed\n", "a.txt", in: local)
        let report = try syncChecked(local, "two", on: second)
        XCTAssertFalse(report.hostSentManifest)
        XCTAssertEqual(report.filesDigested, 1, "only the changed file is read before comparing")
        XCTAssertEqual(report.entriesSent, 1)

        // A damaged manifest file: its token still matches the host, but its content cannot be trusted.
        let files = try FileManager.default.contentsOfDirectory(atPath: state.path).filter { $0.hasPrefix("manifest-") }
        XCTAssertEqual(files.count, 1)
        let file = state.appendingPathComponent(files[0])
        var bytes = [UInt8](try Data(contentsOf: file))
        bytes[bytes.count - 5] ^= 0x01
        try Data(bytes).write(to: file)
        let third = try coordinator(stateFolder: state)
        defer { third.session.disconnect() }
        let rebuilt = try syncChecked(local, "three", on: third)
        XCTAssertEqual(rebuilt.kind, .full)
    }
}

/// Errors collected from several threads.
private final class ErrorList: @unchecked Sendable {
    private let lock = NSLock()
    private var items = [String]()

    func append(_ item: String) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

import Foundation
import PipeBasics
import PipeCore
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// A build cache's tree synced in place over a real sshd: it matches the commit exactly after a run changed it, and
/// what the run left alone keeps its modification time (Xcode's incremental build depends on it).
final class BuildCacheSyncTests: XCTestCase {
    private static let emulated = SharedEmulatedMacHost(name: "mac-cache-sync", statePrefix: "pipe-cache-sync-host")

    private var scratch: TemporaryDirectory!
    private var workDirectory: String!
    private var host: SSHRemoteHost!

    override class func tearDown() {
        emulated.stop()
    }

    override func setUpWithError() throws {
        let emulated = try Self.emulated.get()
        scratch = try TemporaryDirectory(prefix: "pipe-cache-sync")
        workDirectory = "/tmp/pipe-cache-sync-work-\(UUID().uuidString.prefix(8))"
        host = SSHRemoteHost(
            session: try SSHSession.connect(to: emulated.hostConfig(workDirectory: workDirectory)),
            terminationGraceSeconds: 1)
    }

    override func tearDownWithError() throws {
        if let host, host.session.isConnected {
            _ = try host.capture(ShellQuote.join(["rm", "-rf", workDirectory]))
            host.session.disconnect()
        }
        scratch?.remove()
    }

    private var tree: URL { URL(fileURLWithPath: workDirectory + "/cache/trusted-0123456789abcdef-1/tree") }

    private func write(_ text: String, _ path: String, in root: URL) throws {
        let file = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    private func sync(_ local: URL) throws -> WorkspaceSyncReport {
        try host.synchronizeWorkspace(directory: local, cacheKey: "trusted-0123456789abcdef-1", to: "")
    }

    /// Every path under `root` with its kind and content (a folder's is empty).
    private func listing(_ root: URL) throws -> [String: String] {
        var listed: [String: String] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: root.path) {
            let url = root.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
            listed[path] = isFolder.boolValue ? "/" : String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }
        return listed
    }

    private func modificationTime(_ url: URL) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
    }

    func testTheTreeIsUsedInPlaceAndMadeToMatchTheCommitAfterARunChangedIt() throws {
        let local = scratch.appending("workspace")
        try write("hello\n", "a.txt", in: local)
        try write("struct App {}\n", "Sources/App/App.swift", in: local)
        try write("struct Kept {}\n", "Sources/App/Kept.swift", in: local)
        try write("gone soon\n", "Sources/Lib/Lib.swift", in: local)
        let first = try sync(local)
        XCTAssertEqual(first.kind, .full)
        XCTAssertEqual(try listing(tree), try listing(local))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: workDirectory + "/runs"), "in place, no run folder is made")
        let keptTime = try modificationTime(tree.appendingPathComponent("Sources/App/Kept.swift"))

        // What a build and its tests might do in the tree, as the host's login: write into a source, add files and
        // folders, delete one.
        let run = try host.capture(
            "cd \(ShellQuote.quote(tree.path)) && echo 'struct App { var hacked = true }' > Sources/App/App.swift "
                + "&& echo generated > Sources/App/Generated.swift && mkdir -p .build/debug "
                + "&& echo junk > .build/debug/junk.o && rm Sources/Lib/Lib.swift")
        XCTAssertEqual(run.exit, .exited(0), run.stderrText)

        let second = try sync(local)
        XCTAssertEqual(second.kind, .delta)
        XCTAssertEqual(try listing(tree), try listing(local), "the tree matches the commit again")
        XCTAssertEqual(second.entriesSent, 2, "the changed file and the removed one come again")
        XCTAssertEqual(
            try modificationTime(tree.appendingPathComponent("Sources/App/Kept.swift")), keptTime,
            "what the run left alone keeps its time")

        // A new commit: only what it changed goes, and the tree matches it.
        try write("hello, changed\n", "a.txt", in: local)
        try FileManager.default.removeItem(at: local.appendingPathComponent("Sources/Lib"))
        let third = try sync(local)
        XCTAssertEqual(third.kind, .delta)
        XCTAssertEqual(third.entriesSent, 1)
        XCTAssertEqual(try listing(tree), try listing(local))
        XCTAssertEqual(try modificationTime(tree.appendingPathComponent("Sources/App/Kept.swift")), keptTime)
    }

    func testTheChangesTheHostListsDecideWhatGoesAndWhatComesAgain() {
        func entry(_ path: String, _ kind: WorkspaceManifest.Kind = .file) -> WorkspaceManifest.Entry {
            WorkspaceManifest.Entry(
                path: path, kind: kind, mode: 0o644, size: 1, digest: kind == .directory ? "-" : "d")
        }
        let host = [
            entry("Sources", .directory), entry("Sources/A.swift"), entry("Sources/B.swift"), entry("Sources/C.swift"),
            entry("Docs", .directory), entry("Docs/Readme"), entry("top.txt"),
        ]
        let local = host
        let touched = WorkspaceTouchedTree(
            touched: ["", "Sources", "Sources/A.swift", "Sources/New.swift", "build", "build/x.o"],
            children: [
                "Sources", "Docs", "top.txt", "build", "Sources/A.swift", "Sources/New.swift", "Sources/C.swift",
            ])
        let applied = touched.apply(toHost: host, local: local)
        XCTAssertEqual(
            applied.deletions, ["Sources/B.swift", "Sources/A.swift", "Sources/New.swift", "build", "build/x.o"],
            "changed, not in the commit, or missing from the tree")
        XCTAssertEqual(
            applied.host.map(\.path), ["Sources", "Sources/C.swift", "Docs", "Docs/Readme", "top.txt"],
            "what was changed or lost is sent again")

        XCTAssertEqual(
            WorkspaceTouchedTree(touched: [], children: []).apply(toHost: host, local: local).host, host,
            "an untouched tree keeps everything")
    }

    func testTheHostsListsAreReadAsHostileInput() {
        let good = WorkspaceTouchedTree(touched: Array("./a\u{0}.\u{0}./b/c\u{0}".utf8)[...], children: [][...])
        XCTAssertEqual(good?.touched, ["a", "", "b/c"])
        for bad in ["a\u{0}", "./../x\u{0}", "./a/../../x\u{0}", "/etc/passwd\u{0}", ".//x\u{0}", "./\u{0}"] {
            XCTAssertNil(
                WorkspaceTouchedTree(touched: Array(bad.utf8)[...], children: [][...]),
                "refused: \(bad.debugDescription)")
        }
    }

    /// Makes a build cache folder on the host holding `kibibytes` KiB, its last sync's mark dated `stamp`
    /// (`touch -t`, `nil`: now).
    private func makeCache(_ name: String, kibibytes: Int, stamp: String?) throws {
        let folder = ShellQuote.quote(workDirectory + "/cache/" + name)
        var line =
            "mkdir -p \(folder)/tree && awk 'BEGIN { for (i = 0; i < \(kibibytes * 1024); i++) printf \"x\" }' "
            + "> \(folder)/tree/blob && : > \(folder)/synced"
        if let stamp { line += " && /usr/bin/touch -t \(stamp) \(folder)/synced" }
        let made = try host.capture(line)
        XCTAssertEqual(made.exit, .exited(0), made.stderrText)
    }

    private func cacheNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workDirectory + "/cache").sorted()
    }

    func testEvictionRemovesTheOldThenTheLeastRecentlyUsedPastTheSizeAndNeverALeasedOne() throws {
        try makeCache("trusted-0000000000000000-1", kibibytes: 4, stamp: "202601010000")
        try makeCache("trusted-3333333333333333-1", kibibytes: 4, stamp: "202601010000")
        try makeCache("trusted-1111111111111111-1", kibibytes: 200, stamp: "203001010000")
        try makeCache("untrusted-2222222222222222-2", kibibytes: 200, stamp: nil)
        let other = try host.capture("mkdir -p \(ShellQuote.quote(workDirectory + "/cache/0123456789abcdef"))")
        XCTAssertEqual(other.exit, .exited(0))
        let policy = BuildCachePolicy(cachesPerIdentity: 2, maxSizeBytes: 300 << 10, maxAgeSeconds: 86_400)
        func evict(_ mode: BuildCacheEviction.Mode, measureOnly: Bool) throws -> [BuildCacheEviction.Removal] {
            let output = try host.capture(
                BuildCacheEviction.command(
                    workDirectory: workDirectory, mode: mode, policy: policy, leased: ["trusted-3333333333333333-1"],
                    measureOnly: measureOnly))
            XCTAssertEqual(output.exit, .exited(0), output.stderrText)
            return BuildCacheEviction.read(output.stdoutText)
        }
        let all = try cacheNames()

        let measured = try evict(.evict, measureOnly: true)
        XCTAssertEqual(try cacheNames(), all, "measuring removes nothing")
        XCTAssertEqual(
            measured.filter { $0.state == .removed }.map(\.name),
            ["trusted-0000000000000000-1", "untrusted-2222222222222222-2"],
            "past max-age, then the least recently used until the rest fits in max-size")
        XCTAssertEqual(measured.filter { $0.state == .busy }.map(\.name), ["trusted-3333333333333333-1"])
        XCTAssertGreaterThanOrEqual(
            measured.first { $0.name == "untrusted-2222222222222222-2" }?.bytes ?? 0, 200 << 10)

        _ = try evict(.evict, measureOnly: false)
        XCTAssertEqual(
            try cacheNames(), ["0123456789abcdef", "trusted-1111111111111111-1", "trusted-3333333333333333-1"],
            "what is not a build cache's name, the most recently used and the leased one stay")

        XCTAssertEqual(
            try evict(.all, measureOnly: false).filter { $0.state == .removed }.map(\.name),
            [
                "trusted-1111111111111111-1"
            ])
        XCTAssertEqual(try cacheNames(), ["0123456789abcdef", "trusted-3333333333333333-1"])
    }
}

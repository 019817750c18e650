import Foundation
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// The manifest, the delta between two of them, and the tar stream a sync sends (read back by the local GNU tar and,
/// where installed, bsdtar — the tar a Mac has).
final class WorkspaceManifestTests: XCTestCase {
    private typealias Entry = WorkspaceManifest.Entry

    private func file(_ path: String, _ digest: String, mode: UInt32 = 0o644, size: Int64 = 3) -> Entry {
        Entry(path: path, kind: .file, mode: mode, size: size, digest: digest)
    }

    private func folder(_ path: String) -> Entry {
        Entry(path: path, kind: .directory, mode: 0o755, size: 0, digest: "-")
    }

    func testTextRoundTripsOddNamesAndRefusesUnsafeOrDamagedOnes() throws {
        let entries = [
            folder("a b"), file("a b/it's \\ odd\nname\r.txt", "d1"), file("a b/é.swift", "d2", mode: 0o755),
            Entry(path: "link", kind: .symlink, mode: 0o777, size: 7, digest: "d3"),
        ]
        let bytes = WorkspaceManifest(entries: entries).bytes
        XCTAssertEqual(WorkspaceManifest(bytes: bytes[...])?.entries, entries)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self).split(separator: "\n").count, 5, "one line an entry")

        for unsafe in ["../x", "a/../../x", "/etc/passwd", "a//b", "./a", "a/", ""] {
            let text = WorkspaceManifest.header + "\nf 644 3 d \(unsafe)\n"
            XCTAssertNil(WorkspaceManifest(bytes: Array(text.utf8)[...]), unsafe)
        }
        XCTAssertNil(WorkspaceManifest(bytes: Array("pipe-workspace-manifest 0\n".utf8)[...]))
        XCTAssertNil(WorkspaceManifest(bytes: Array((WorkspaceManifest.header + "\nf 644 3 d\n").utf8)[...]))
        XCTAssertNotNil(WorkspaceManifest(bytes: Array((WorkspaceManifest.header + "\nf 644 3 d ...\n").utf8)[...]))
    }

    func testAPatchAppendedToAManifestReadsAsTheNewManifest() throws {
        let old = [
            folder("a"), file("a/x", "1"), folder("a/b"), file("a/b/y", "2"), file("keep", "3"), file("link", "4"),
        ]
        var new = [folder("a"), file("a/x", "9"), file("keep", "3"), folder("c"), file("c/z", "5")]
        new.append(Entry(path: "link", kind: .symlink, mode: 0o777, size: 1, digest: "6"))
        new.append(file("odd\nname", "7"))
        let delta = WorkspaceDelta(from: old, to: new)
        let patched =
            WorkspaceManifest(entries: old).bytes
            + WorkspaceManifest.patch(
                deletions: delta.deletions, sends: delta.sends)
        let read = try XCTUnwrap(WorkspaceManifest(bytes: patched[...]))
        XCTAssertEqual(Set(read.entries.map(\.path)), Set(new.map(\.path)))
        for entry in new {
            XCTAssertTrue(read.entries.contains { $0.path == entry.path && $0.sameContent(as: entry) }, entry.path)
        }
        // Still a folder before what is in it, and the patch lines counted (marker, deletions, sends).
        XCTAssertLessThan(
            try XCTUnwrap(read.entries.firstIndex { $0.path == "c" }),
            try XCTUnwrap(read.entries.firstIndex { $0.path == "c/z" }))
        XCTAssertEqual(read.patchLines, 1 + delta.deletions.count + delta.sends.count)
        // A second patch on top of the first.
        let newer = new.filter { $0.path != "c" && $0.path != "c/z" }
        let again = WorkspaceDelta(from: read.entries, to: newer)
        let twice = patched + WorkspaceManifest.patch(deletions: again.deletions, sends: again.sends)
        XCTAssertEqual(
            Set(try XCTUnwrap(WorkspaceManifest(bytes: twice[...])).entries.map(\.path)), Set(newer.map(\.path)))
    }

    func testDeltaDeletesFirstSendsOnlyWhatDiffersAndListsAFolderOnce() {
        let old = [
            folder("gone"), file("gone/x", "1"), folder("gone/deep"), file("gone/deep/y", "2"), file("same", "3"),
            file("changed", "4"), file("chmod", "5"), folder("becomes-file"), file("becomes-file/z", "6"),
            Entry(path: "link", kind: .symlink, mode: 0o777, size: 1, digest: "a"),
        ]
        let new = [
            file("same", "3"), file("changed", "4b"), file("chmod", "5", mode: 0o755), file("becomes-file", "7"),
            Entry(path: "link", kind: .symlink, mode: 0o777, size: 1, digest: "b"), folder("new"), file("new/n", "8"),
        ]
        let delta = WorkspaceDelta(from: old, to: new)
        XCTAssertEqual(delta.deletions, ["gone", "becomes-file", "link"])
        XCTAssertEqual(delta.sends.map(\.path), ["changed", "chmod", "becomes-file", "link", "new", "new/n"])
        XCTAssertEqual(WorkspaceDelta(from: new, to: new).sends, [])
    }

    func testTheStreamIsATarThatGNUTarAndBsdtarExtract() throws {
        let scratch = try TemporaryDirectory(prefix: "pipe-tar-stream")
        defer { scratch.remove() }
        let root = scratch.appending("root")
        let long = String(repeating: "a-rather-long-folder-name/", count: 6) + "file.txt"
        let manager = FileManager.default
        try manager.createDirectory(
            at: root.appendingPathComponent((long as NSString).deletingLastPathComponent),
            withIntermediateDirectories: true)
        try Data("long\n".utf8).write(to: root.appendingPathComponent(long))
        try manager.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
        try Data(repeating: 9, count: WorkspaceDigest.wholeFileLimit + 1_000).write(
            to: root.appendingPathComponent("big.bin"))
        try Data("#!/bin/sh\n".utf8).write(to: root.appendingPathComponent("tool"))
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.appendingPathComponent("tool").path)
        try manager.createSymbolicLink(
            atPath: root.appendingPathComponent("far").path, withDestinationPath: String(repeating: "../x/", count: 30))

        let entries = try WorkspaceScanner.entries(under: root)
        let stream = WorkspaceTarStream(
            root: root, entries: entries, lastFile: ("manifest.test", { WorkspaceManifest(entries: $0).bytes }))
        var archive = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 100_000, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try stream.fill(buffer)
            if count == 0 { break }
            archive.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        XCTAssertEqual(archive.count % 10_240, 0, "whole records, as tar writes them")
        XCTAssertEqual(Int64(archive.count), stream.byteCount)
        let archiveFile = scratch.appending("stream.tar")
        try archive.write(to: archiveFile)

        let tars = ["/usr/bin/tar", "/usr/bin/bsdtar"].filter { manager.isExecutableFile(atPath: $0) }
        for tar in tars {
            let out = scratch.appending("out-\((tar as NSString).lastPathComponent)")
            try manager.createDirectory(at: out, withIntermediateDirectories: true)
            let result = try CommandRunner.run(
                URL(fileURLWithPath: tar), ["-x", "-p", "-o", "-f", archiveFile.path, "-C", out.path])
            XCTAssertEqual(result.exitCode, 0, "\(tar): \(result.combined)")
            let tree = out.appendingPathComponent("tree")
            XCTAssertEqual(try String(contentsOf: tree.appendingPathComponent(long), encoding: .utf8), "long\n", tar)
            XCTAssertEqual(
                try manager.destinationOfSymbolicLink(atPath: tree.appendingPathComponent("far").path),
                String(repeating: "../x/", count: 30), tar)
            XCTAssertEqual(
                try Data(contentsOf: tree.appendingPathComponent("big.bin")).count,
                WorkspaceDigest.wholeFileLimit + 1_000)
            let mode = try manager.attributesOfItem(atPath: tree.appendingPathComponent("tool").path)[.posixPermissions]
            XCTAssertEqual((mode as? Int).map { $0 & 0o777 }, 0o755, tar)
            XCTAssertTrue(manager.fileExists(atPath: tree.appendingPathComponent("empty").path), tar)
            let manifest = try Data(contentsOf: out.appendingPathComponent("manifest.test"))
            let written = try XCTUnwrap(WorkspaceManifest(bytes: Array(manifest)[...]))
            XCTAssertEqual(written.entries.count, entries.count)
            XCTAssertFalse(written.entries.contains { $0.kind == .file && $0.digest.isEmpty }, "digests taken as read")
        }
    }
}

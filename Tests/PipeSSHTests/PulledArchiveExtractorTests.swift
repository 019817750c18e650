import Foundation
import PipeBasics
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// What a host sends back is extracted only as regular files, folders and links that stay inside the item; every
/// other member is refused by name, and nothing is written outside the staging folder.
final class PulledArchiveExtractorTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var staging: URL!
    /// A file beside the staging folder that escaping members aim at.
    private var outside: URL!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-extract")
        staging = folder.appending("staging")
        outside = folder.appending("outside")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    }

    override func tearDown() {
        folder.remove()
    }

    private func extract(_ archive: RawTarArchive, item: String = "x.xcresult", maximumBytes: Int64 = 1 << 30)
        throws -> PulledArchiveExtractor.Ending
    {
        var complete = archive
        complete.finish()
        let extractor = try PulledArchiveExtractor(into: staging, item: item, maximumBytes: maximumBytes)
        var offset = 0
        let bytes = complete.bytes
        let deadline = Date().addingTimeInterval(20)
        while offset < bytes.count && Date() < deadline {
            do {
                offset += try bytes[offset...].withUnsafeBytes { try extractor.write($0) }
            } catch {
                break  // it stopped reading: refused, or past the archive's end
            }
            if offset < bytes.count { usleep(500) }
        }
        return extractor.finish(waitingAtMost: 20)
    }

    private func refusal(_ ending: PulledArchiveExtractor.Ending, file: StaticString = #filePath, line: UInt = #line)
        -> String
    {
        guard case .refused(let reason) = ending else {
            XCTFail("expected a refusal, got \(ending)", file: file, line: line)
            return ""
        }
        return reason
    }

    private func outsideIsUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [], file: file, line: line)
    }

    func testRegularFilesFoldersAndInsideLinksComeOutWithMaskedModes() throws {
        var archive = RawTarArchive()
        archive.add("./x.xcresult", kind: .folder, mode: 0o777)
        archive.add("./x.xcresult/Info.plist", contents: Array("plist".utf8), mode: 0o6777, owner: 0, group: 0)
        archive.add("./x.xcresult/tool", contents: Array("#!/bin/sh\n".utf8), mode: 0o4755)
        archive.add("./x.xcresult/Data/deep/file", contents: Array("deep".utf8))
        archive.add("./x.xcresult/current", kind: .symbolicLink, linkTarget: "Data/deep")
        archive.add("./x.xcresult/Data/up", kind: .symbolicLink, linkTarget: "../Info.plist")
        guard case .extracted(let links, let bytes) = try extract(archive) else { return XCTFail("refused") }
        XCTAssertEqual(bytes, 5 + 10 + 4)
        XCTAssertEqual(links.count, 2)
        XCTAssertNil(SymlinkContainment.firstEscape(among: links, in: staging))
        let item = staging.appendingPathComponent("x.xcresult")
        XCTAssertEqual(try String(contentsOf: item.appendingPathComponent("current/file"), encoding: .utf8), "deep")
        XCTAssertEqual(try String(contentsOf: item.appendingPathComponent("Data/up"), encoding: .utf8), "plist")
        let umask = currentUmask()
        XCTAssertEqual(
            try mode(of: item.appendingPathComponent("Info.plist")), 0o755 & ~umask, "setuid and setgid kept")
        XCTAssertEqual(try mode(of: item.appendingPathComponent("tool")), 0o755 & ~umask)
        XCTAssertEqual(try mode(of: item.appendingPathComponent("Data/deep/file")), 0o644 & ~umask)
        XCTAssertEqual(try mode(of: item), 0o755 & ~umask, "a folder's mode came from the archive")
    }

    func testDeviceNodesFIFOsAndForeignNamesAreRefusedByName() throws {
        let cases: [(RawTarArchive.Kind, String, String, String)] = [
            (.characterDevice, "./x.xcresult/mem", "", "a device node `x.xcresult/mem`"),
            (.blockDevice, "./x.xcresult/disk", "", "a device node `x.xcresult/disk`"),
            (.fifo, "./x.xcresult/pipe", "", "a FIFO `x.xcresult/pipe`"),
            (.file, "/etc/pipe-absolute", "", "an absolute name"),
            (.file, "./x.xcresult/../../outside/a", "", "a `..` component"),
            (.file, "./other/a", "", "a name outside the item"),
            (.symbolicLink, "./x.xcresult/abs", "/etc/passwd", "to an absolute or empty path"),
        ]
        for (kind, name, target, expected) in cases {
            try FileManager.default.removeItem(at: staging)
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            var archive = RawTarArchive()
            archive.add("./x.xcresult", kind: .folder)
            archive.add(name, kind: kind, contents: kind == .file ? [1, 2, 3] : [], linkTarget: target)
            let reason = refusal(try extract(archive))
            XCTAssertTrue(reason.contains(expected), "\(name): \(reason)")
            try outsideIsUntouched()
            XCTAssertFalse(FileManager.default.fileExists(atPath: "/etc/pipe-absolute"))
        }
    }

    func testNothingIsWrittenThroughALinkTheArchiveMadeEarlier() throws {
        var archive = RawTarArchive()
        archive.add("./x.xcresult/p", kind: .symbolicLink, linkTarget: "../../outside")
        archive.add("./x.xcresult/p/planted", contents: Array("owned".utf8))
        let reason = refusal(try extract(archive))
        XCTAssertTrue(reason.contains("would be written through `x.xcresult/p`"), reason)
        try outsideIsUntouched()
    }

    /// The two halves of a split pull-back extract into one staging folder: a link from the first cannot carry the
    /// second's files out.
    func testTwoHalvesCannotCombineIntoAnEscape() throws {
        var first = RawTarArchive()
        first.add("./x.xcresult", kind: .folder)
        first.add("./x.xcresult/p", kind: .symbolicLink, linkTarget: "../../outside")
        guard case .extracted(let links, _) = try extract(first) else { return XCTFail("the first half was refused") }
        XCTAssertNotNil(SymlinkContainment.firstEscape(among: links, in: staging), "a link that leads out passed")
        var second = RawTarArchive()
        second.add("./x.xcresult", kind: .folder)
        second.add("./x.xcresult/p", kind: .folder)
        second.add("./x.xcresult/p/authorized_keys", contents: Array("ssh-ed25519 AAAA".utf8))
        let reason = refusal(try extract(second))
        XCTAssertTrue(reason.contains("arrived over another member"), reason)
        try outsideIsUntouched()
    }

    /// A check of a link's text alone is not enough: `d/p -> q/../..` reads as inside, but `d/q -> ..` makes it
    /// lead out.
    func testLinksAreCheckedAsTheKernelResolvesThem() throws {
        var archive = RawTarArchive()
        archive.add("./x.xcresult/d", kind: .folder)
        archive.add("./x.xcresult/d/q", kind: .symbolicLink, linkTarget: "..")
        archive.add("./x.xcresult/d/p", kind: .symbolicLink, linkTarget: "q/../..")
        guard case .extracted(let links, _) = try extract(archive) else { return XCTFail("refused before the check") }
        let escape = SymlinkContainment.firstEscape(among: links, in: staging)
        XCTAssertEqual(escape?.link.display, "x.xcresult/d/p")
        XCTAssertEqual(escape?.why, "it leads out of the item")

        try FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        var loop = RawTarArchive()
        loop.add("./x.xcresult/a", kind: .symbolicLink, linkTarget: "b")
        loop.add("./x.xcresult/b", kind: .symbolicLink, linkTarget: "a")
        guard case .extracted(let loopLinks, _) = try extract(loop) else { return XCTFail("refused") }
        XCTAssertEqual(
            SymlinkContainment.firstEscape(among: loopLinks, in: staging)?.why, "it resolves through more than 40 links"
        )
    }

    func testHardLinksBecomeCopiesOfFilesInsideTheItem() throws {
        var archive = RawTarArchive()
        archive.add("./x.xcresult/a", contents: Array("same".utf8))
        archive.add("./x.xcresult/b", kind: .hardLink, linkTarget: "./x.xcresult/a")
        guard case .extracted = try extract(archive) else { return XCTFail("refused") }
        let item = staging.appendingPathComponent("x.xcresult")
        XCTAssertEqual(try String(contentsOf: item.appendingPathComponent("b"), encoding: .utf8), "same")
        var inside = stat()
        var copy = stat()
        XCTAssertEqual(stat(item.appendingPathComponent("a").path, &inside), 0)
        XCTAssertEqual(stat(item.appendingPathComponent("b").path, &copy), 0)
        XCTAssertNotEqual(inside.st_ino, copy.st_ino, "a hard link was made")

        try FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        var outward = RawTarArchive()
        outward.add("./x.xcresult/b", kind: .hardLink, linkTarget: "/etc/passwd")
        XCTAssertTrue(refusal(try extract(outward)).contains("a hard link `x.xcresult/b` to an absolute name"))
    }

    func testLongNamesThroughPaxHeadersAndTooLongOnesAreRefused() throws {
        let long = "./x.xcresult/" + String(repeating: "d/", count: 80) + "file"
        var archive = RawTarArchive()
        archive.add(long, contents: Array("far down".utf8))
        guard case .extracted = try extract(archive) else { return XCTFail("a long pax name was refused") }
        XCTAssertEqual(
            try String(contentsOf: staging.appendingPathComponent(String(long.dropFirst(2))), encoding: .utf8),
            "far down")

        try FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        var tooLong = RawTarArchive()
        tooLong.add("./x.xcresult/" + String(repeating: "n", count: 300), contents: [1])
        XCTAssertTrue(refusal(try extract(tooLong)).contains("a name longer than"))
    }

    func testAppleDoubleMetadataIsDroppedAndOrdinaryDotUnderscoreFilesKept() throws {
        var archive = RawTarArchive()
        archive.add("./x.xcresult/._Info.plist", contents: [0x00, 0x05, 0x16, 0x07, 0, 2, 0, 0])
        archive.add("./x.xcresult/Info.plist", contents: Array("plist".utf8))
        archive.add("./x.xcresult/._notes", contents: Array("plain text".utf8))
        guard case .extracted = try extract(archive) else { return XCTFail("refused") }
        let names = try FileManager.default.contentsOfDirectory(
            atPath: staging.appendingPathComponent("x.xcresult").path)
        XCTAssertEqual(Set(names), ["Info.plist", "._notes"])
    }

    func testAMemberTwiceAndAnItemPastTheLimitAreRefused() throws {
        var twice = RawTarArchive()
        twice.add("./x.xcresult/a", contents: [1])
        twice.add("./x.xcresult/a", contents: [2])
        XCTAssertTrue(refusal(try extract(twice)).contains("`x.xcresult/a` arrived twice"))

        try FileManager.default.removeItem(at: staging)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        var big = RawTarArchive()
        big.add("./x.xcresult/a", contents: [UInt8](repeating: 7, count: 5_000))
        XCTAssertTrue(
            refusal(try extract(big, maximumBytes: 4_096)).contains(
                "it holds more than 4096 bytes, the most this pull-back may bring"))
    }

    func testNamesFromTheInjectionCorpusNeverLandOutside() throws {
        for bytes in InjectionCorpus.byteStrings where !bytes.isEmpty && bytes.count < 200 {
            try FileManager.default.removeItem(at: staging)
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            var archive = RawTarArchive()
            archive.add(nameBytes: Array("./x.xcresult/".utf8) + bytes, contents: [1])
            archive.add(nameBytes: Array("./x.xcresult/l".utf8), kind: .symbolicLink, linkTarget: bytes)
            switch try extract(archive) {
            case .extracted(let links, _):
                _ = SymlinkContainment.firstEscape(among: links, in: staging)
            case .refused(let reason):
                XCTAssertFalse(reason.unicodeScalars.contains { $0.value < 0x20 }, "a control character in \(reason)")
            case .failed(let message):
                XCTFail("\(bytes): \(message)")
            }
            try outsideIsUntouched()
        }
    }

    /// An extraction that refuses mid-stream, while megabytes wait for it: what waits is dropped, the rest of the
    /// stream is still counted and digested, and the refusal is the ending.
    func testARefusalWhileBytesWaitDropsThemAndTheStreamIsStillDigested() throws {
        var archive = RawTarArchive()
        archive.add("./x.xcresult/big", contents: [UInt8](repeating: 1, count: 4 << 20))
        archive.add("./x.xcresult/mem", kind: .characterDevice)
        archive.add("./x.xcresult/after", contents: [UInt8](repeating: 2, count: 4 << 20))
        archive.finish()
        let extractor = try PulledArchiveExtractor(into: staging, item: "x.xcresult", maximumBytes: 1 << 30)
        let output = ExtractionOutput(extractor: extractor)
        let chunk = 256 * 1024
        var offset = 0
        let deadline = Date().addingTimeInterval(30)
        while offset < archive.bytes.count && Date() < deadline {
            if output.acceptsStdout {
                let end = min(offset + chunk, archive.bytes.count)
                try archive.bytes[offset..<end].withUnsafeBytes { try output.stdout($0) }
                offset = end
            } else {
                _ = try output.flush()
                usleep(1_000)
            }
        }
        XCTAssertTrue(try output.flushAll(until: Deadline(secondsFromNow: 30)))
        XCTAssertEqual(output.byteCount, Int64(archive.bytes.count))
        XCTAssertEqual(output.finalDigest(), SHA256Digest.hex(of: Data(archive.bytes)))
        XCTAssertTrue(refusal(extractor.finish(waitingAtMost: 20)).contains("a device node `x.xcresult/mem`"))
        try outsideIsUntouched()
    }

    private func mode(of url: URL) throws -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(url.path, &info), 0)
        return info.st_mode & 0o7777
    }

    private func currentUmask() -> mode_t {
        let value = umask(0o022)
        umask(value)
        return value
    }
}

import Foundation
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// The controller's parsed-file cache against real files: a value is parsed again exactly when its file changed.
final class ParsedFileCacheTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-parsed-cache")
    }

    override func tearDown() {
        folder?.remove()
        super.tearDown()
    }

    private struct Unreadable: Error {}

    private func read(_ url: URL) throws -> String {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { throw Unreadable() }
        return text
    }

    /// A cache whose clock is a minute ahead: every file written by the test has settled.
    private func settledCache() -> ParsedFileCache<String> {
        ParsedFileCache<String>(clock: { Date().addingTimeInterval(60) })
    }

    func testAnUnchangedFileIsParsedOnceAndEveryKindOfChangeIsSeen() throws {
        let file = folder.appending("pipeline.yml")
        try "layers: {}\n".write(to: file, atomically: false, encoding: .utf8)
        let cache = settledCache()
        for _ in 0..<3 { XCTAssertEqual(try cache.value(for: "p", files: [file]) { try read(file) }, "layers: {}\n") }
        XCTAssertEqual(cache.parses, 1)

        // Rewritten in place with the same size: the modification time tells (file times tick every few
        // milliseconds, hence the pause; a real edit comes much later, and the settle rule covers a quick one).
        usleep(30_000)
        try "layers: []\n".write(to: file, atomically: false, encoding: .utf8)
        XCTAssertEqual(try cache.value(for: "p", files: [file]) { try read(file) }, "layers: []\n")
        XCTAssertEqual(cache.parses, 2)

        // Replaced by a new file (an editor's save, `mv`): a new inode.
        let replacement = folder.appending("new.yml")
        try "layers: {a: 1}\n".write(to: replacement, atomically: false, encoding: .utf8)
        XCTAssertEqual(rename(replacement.path, file.path), 0)
        XCTAssertEqual(try cache.value(for: "p", files: [file]) { try read(file) }, "layers: {a: 1}\n")
        XCTAssertEqual(try cache.value(for: "p", files: [file]) { try read(file) }, "layers: {a: 1}\n")
        XCTAssertEqual(cache.parses, 3)
    }

    func testKeysAreKeptApartAndForgettingReadsAgain() throws {
        let file = folder.appending("hosts.yml")
        try "hosts: []\n".write(to: file, atomically: false, encoding: .utf8)
        let cache = settledCache()
        XCTAssertEqual(try cache.value(for: "a", files: [file]) { "a:" + (try read(file)) }, "a:hosts: []\n")
        XCTAssertEqual(try cache.value(for: "b", files: [file]) { "b:" + (try read(file)) }, "b:hosts: []\n")
        XCTAssertEqual(try cache.value(for: "a", files: [file]) { "a:" + (try read(file)) }, "a:hosts: []\n")
        XCTAssertEqual(cache.parses, 2)
        XCTAssertEqual(cache.count, 2)
        cache.removeAll()
        XCTAssertEqual(cache.count, 0)
        _ = try cache.value(for: "a", files: [file]) { try read(file) }
        XCTAssertEqual(cache.parses, 3)
    }

    func testAFileChangedJustNowIsParsedAgainUntilItHasSettled() throws {
        let file = folder.appending("pipeline.yml")
        try "x\n".write(to: file, atomically: false, encoding: .utf8)
        // The clock says the file changed this very moment: a second write in the same tick could keep its stamp.
        let cache = ParsedFileCache<String>(clock: Date.init)
        _ = try cache.value(for: "p", files: [file]) { try read(file) }
        _ = try cache.value(for: "p", files: [file]) { try read(file) }
        XCTAssertEqual(cache.parses, 2)
        XCTAssertEqual(cache.count, 0)
    }

    func testFailuresAreNotKeptAndAFileThatAppearsIsRead() throws {
        let file = folder.appending("hosts.yml")
        let cache = settledCache()
        XCTAssertThrowsError(try cache.value(for: "h", files: [file]) { try read(file) })
        XCTAssertThrowsError(try cache.value(for: "h", files: [file]) { try read(file) })
        XCTAssertEqual(cache.parses, 2, "a missing file is looked for again on every use")
        try "hosts: []\n".write(to: file, atomically: false, encoding: .utf8)
        XCTAssertEqual(try cache.value(for: "h", files: [file]) { try read(file) }, "hosts: []\n")
        try FileManager.default.removeItem(at: file)
        XCTAssertThrowsError(try cache.value(for: "h", files: [file]) { try read(file) }, "its removal is a change too")
    }
}

import Foundation
import PipeTestSupport
import XCTest

@testable import PipeWeb

final class ArtifactFileTests: XCTestCase {
    func testLinksAreNeverFollowedOnTheWayOrAtTheEnd() throws {
        let folder = try TemporaryDirectory()
        let fm = FileManager.default
        let run = folder.url.appendingPathComponent("artifacts/run1")
        try fm.createDirectory(at: run, withIntermediateDirectories: true)
        try "log".write(to: run.appendingPathComponent("logic.log"), atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: run.appendingPathComponent("passwd").path, withDestinationPath: "/etc/passwd")
        try fm.createSymbolicLink(atPath: folder.url.appendingPathComponent("etc").path, withDestinationPath: "/etc")

        XCTAssertEqual(
            ArtifactFile.find("artifacts/run1/logic.log", in: folder.url),
            .file(run.appendingPathComponent("logic.log"), size: 3))
        XCTAssertNil(ArtifactFile.find("artifacts/run1/passwd", in: folder.url))
        XCTAssertNil(ArtifactFile.find("etc/passwd", in: folder.url))
        XCTAssertNil(ArtifactFile.find("artifacts/../artifacts/run1/logic.log", in: folder.url))
        XCTAssertNil(ArtifactFile.find("/etc/passwd", in: folder.url))
    }

    func testABundleIsArchivedWithItsFilesAndWithoutItsLinks() throws {
        let folder = try TemporaryDirectory()
        let fm = FileManager.default
        let bundle = folder.url.appendingPathComponent("logic.xcresult")
        let deep = bundle.appendingPathComponent("Data/" + String(repeating: "d", count: 120))
        try fm.createDirectory(at: deep, withIntermediateDirectories: true)
        try "{\"a\":1}".write(to: bundle.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        try Data(repeating: 7, count: 70_000).write(to: deep.appendingPathComponent("data.0~abc"))
        try fm.createSymbolicLink(
            atPath: bundle.appendingPathComponent("secret").path, withDestinationPath: "/etc/passwd")

        var archive: [UInt8] = []
        FolderTarWriter.write(bundle, as: "logic.xcresult") {
            archive += $0
            return true
        }
        XCTAssertEqual(archive.count % 512, 0)
        let tarFile = folder.url.appendingPathComponent("bundle.tar")
        try Data(archive).write(to: tarFile)
        let out = folder.url.appendingPathComponent("out")
        try fm.createDirectory(at: out, withIntermediateDirectories: true)
        // bsdtar is the tar of macOS, where the bundle is opened.
        let extracted = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/bsdtar"), ["-xf", tarFile.path, "-C", out.path])
        XCTAssertEqual(extracted.exitCode, 0, extracted.combined)
        let copy = out.appendingPathComponent("logic.xcresult")
        XCTAssertEqual(try String(contentsOf: copy.appendingPathComponent("Info.plist"), encoding: .utf8), "{\"a\":1}")
        XCTAssertEqual(
            try Data(contentsOf: copy.appendingPathComponent("Data/\(String(repeating: "d", count: 120))/data.0~abc")),
            Data(repeating: 7, count: 70_000))
        XCTAssertFalse(fm.fileExists(atPath: copy.appendingPathComponent("secret").path), "links are left out")
    }
}

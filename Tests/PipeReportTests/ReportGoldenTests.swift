import Foundation
import PipeCLI
import PipeTestSupport
import XCTest

/// `pipe report` against golden files: each folder under `Fixtures/report/` is a case with its inputs, a `flags`
/// file (one argument per line; `#` starts a comment line) and `expected/` (`stdout`, `stderr`, `exit-code`, and
/// the `junit.xml`, `summary.md` and `summary.json` every case is asked to write). Output is compared byte for
/// byte. Re-record with `PIPE_RECORD_SNAPSHOTS=1 swift test --filter ReportGoldenTests`, then read the diff.
///
/// The command runs in this process through `PipeCommandLine.main`, in a temporary folder holding a copy of the
/// case's inputs, so every path in the output is relative and the same on every machine.
final class ReportGoldenTests: XCTestCase {
    static let casesFolder = Fixture.url("report")
    static let reportFlags = [
        "--junit", "out/junit.xml", "--markdown", "out/summary.md", "--summary", "out/summary.json",
    ]
    static var recording: Bool { ProcessInfo.processInfo.environment["PIPE_RECORD_SNAPSHOTS"] == "1" }

    func testEveryCase() throws {
        let cases = try Self.caseNames()
        XCTAssertGreaterThan(cases.count, 30, "the golden cases are missing from \(Self.casesFolder.path)")
        for name in cases { try check(name) }
    }

    static func caseNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: casesFolder.path).filter { name in
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(
                atPath: casesFolder.appendingPathComponent(name).path, isDirectory: &isDirectory)
            return exists && isDirectory.boolValue
        }.sorted()
    }

    /// Runs one case and returns what it produced, by file name (`stdout`, `stderr`, `exit-code`, reports).
    static func run(_ name: String) throws -> [String: Data] {
        let caseFolder = casesFolder.appendingPathComponent(name)
        let work = try TemporaryDirectory(prefix: "pipe-report-golden")
        defer { work.remove() }
        let files = FileManager.default
        for file in try files.contentsOfDirectory(atPath: caseFolder.path) where file != "expected" && file != "flags" {
            try files.copyItem(at: caseFolder.appendingPathComponent(file), to: work.appending(file))
        }
        try files.createDirectory(at: work.appending("out"), withIntermediateDirectories: true)
        let flagsText = try String(contentsOf: caseFolder.appendingPathComponent("flags"), encoding: .utf8)
        let flags = flagsText.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }

        var stdout = ""
        var stderr = ""
        let previous = files.currentDirectoryPath
        guard files.changeCurrentDirectoryPath(work.url.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: work.url.path])
        }
        let code = PipeCommandLine.main(
            ["report"] + flags + reportFlags, environment: ["CI": "true"],
            console: Console(out: { stdout += $0 }, err: { stderr += $0 }))
        _ = files.changeCurrentDirectoryPath(previous)

        var produced: [String: Data] = [
            "stdout": Data(stdout.utf8), "stderr": Data(stderr.utf8), "exit-code": Data("\(code)\n".utf8),
        ]
        for file in try files.contentsOfDirectory(atPath: work.appending("out").path) {
            produced[file] = try Data(contentsOf: work.appending("out/\(file)"))
        }
        return produced
    }

    private func check(_ name: String) throws {
        let produced = try Self.run(name)
        let expectedFolder = Self.casesFolder.appendingPathComponent(name).appendingPathComponent("expected")
        let files = FileManager.default
        if Self.recording {
            try? files.removeItem(at: expectedFolder)
            try files.createDirectory(at: expectedFolder, withIntermediateDirectories: true)
            for (file, data) in produced { try data.write(to: expectedFolder.appendingPathComponent(file)) }
            return
        }
        let expectedFiles = Set((try? files.contentsOfDirectory(atPath: expectedFolder.path)) ?? [])
        XCTAssertEqual(
            Set(produced.keys), expectedFiles,
            "case \(name): the files written differ from expected/ (PIPE_RECORD_SNAPSHOTS=1 re-records)")
        for file in expectedFiles.sorted() {
            let expected = try Data(contentsOf: expectedFolder.appendingPathComponent(file))
            guard let actual = produced[file] else { continue }
            if actual != expected {
                XCTFail("case \(name), \(file): " + Self.firstDifference(expected, actual))
            }
        }
    }

    /// The first line that differs, for a failure message that says where to look.
    static func firstDifference(_ expected: Data, _ actual: Data) -> String {
        let expectedLines = String(decoding: expected, as: UTF8.self).components(separatedBy: "\n")
        let actualLines = String(decoding: actual, as: UTF8.self).components(separatedBy: "\n")
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let want = index < expectedLines.count ? expectedLines[index] : "(end of file)"
            let got = index < actualLines.count ? actualLines[index] : "(end of file)"
            if want != got { return "line \(index + 1):\n  expected: \(want)\n  actual:   \(got)" }
        }
        return "the bytes differ (line endings?)"
    }
}

import Foundation
import PipeTestSupport
import XCTest

/// The built `pipe report` binary: a log piped in on stdin, JSON lines, usage errors, and flat memory on a log of a
/// few hundred megabytes generated while it is read.
final class ReportCommandTests: XCTestCase {
    var work: TemporaryDirectory!
    static let cases = RepositoryPaths.root.appendingPathComponent("Tests/PipeReportTests/Fixtures/report")

    override func setUpWithError() throws {
        work = try TemporaryDirectory(prefix: "pipe-report-e2e")
        try FileManager.default.createDirectory(at: work.appending("out"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        work.remove()
    }

    private func report(_ arguments: [String], stdin: Data? = nil) throws -> CommandResult {
        try CommandRunner.run(
            RepositoryPaths.pipeBinary, ["report"] + arguments, environment: ["CI": "true", "PATH": "/usr/bin:/bin"],
            currentDirectory: work.url, stdin: stdin)
    }

    private func golden(_ path: String) throws -> String {
        try String(contentsOf: Self.cases.appendingPathComponent(path), encoding: .utf8)
    }

    /// `xcodebuild … 2>&1 | pipe report`: the same view and JUnit report as when the file is named.
    func testALogPipedInIsReportedAsTheSameLogReadFromAFile() throws {
        let log = try Data(contentsOf: Self.cases.appendingPathComponent("log-test-failed-xcode15/xcodebuild.log"))
        let result = try report(
            ["--junit", "out/junit.xml", "--markdown", "out/summary.md", "--summary", "out/summary.json"], stdin: log)
        XCTAssertEqual(result.exitCode, 1, result.combined)
        XCTAssertEqual(result.stdout, try golden("log-test-failed-xcode15/expected/stdout"))
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(
            try String(contentsOf: work.appending("out/junit.xml"), encoding: .utf8),
            try golden("log-test-failed-xcode15/expected/junit.xml"))
    }

    func testJSONLinesOnStdout() throws {
        let log = try Data(contentsOf: Self.cases.appendingPathComponent("log-killed-no-banner/xcodebuild.log"))
        let result = try report(["--json"], stdin: log)
        // A test failed before the log ended: the app's failure, not the machine's.
        XCTAssertEqual(result.exitCode, 1, result.combined)
        let objects = try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(objects.first?["event"] as? String, "layer-started")
        XCTAssertEqual(objects.last?["event"] as? String, "run-finished")
        XCTAssertEqual(objects.last?["exitCode"] as? Int, 1)
        XCTAssertTrue(objects.allSatisfy { $0["time"] == nil }, "no wall-clock time in pipe report's output")
        let finished = objects.first { $0["event"] as? String == "layer-finished" }
        XCTAssertEqual(finished?["outcome"] as? String, "tests-failed")
    }

    func testUsageErrorsExitTwoAndReadNothing() throws {
        let badCode = try report(["--log", "x.log", "--exit-code", "sixty-five"])
        XCTAssertEqual(badCode.exitCode, 2)
        XCTAssertTrue(badCode.stderr.contains("invalid value 'sixty-five' for '--exit-code'"), badCode.stderr)
        let badFolder = try report(["--log", "x.log", "--junit", "missing/junit.xml"])
        XCTAssertEqual(badFolder.exitCode, 2)
        XCTAssertTrue(badFolder.stderr.contains("does not exist; create it first"), badFolder.stderr)
        let stray = try report(["x.log"])
        XCTAssertEqual(stray.exitCode, 2)
        XCTAssertTrue(stray.stderr.contains("give the log with --log"), stray.stderr)
    }

    /// A log of 256 MB, written into the pipe while `pipe report` reads it: peak memory stays under 64 MB.
    func testMemoryStaysFlatOnALargeLog() throws {
        let megabytes = 128
        let limitKilobytes = 64 * 1024
        let generator = LargeLog(megabytes: megabytes)
        let measured = try PeakMemory.run(
            RepositoryPaths.pipeBinary, ["report", "--junit", "out/junit.xml"], currentDirectory: work.url,
            input: generator.write(to:))
        XCTAssertEqual(measured.exitCode, 1, "the generated log's tests failed: \(measured.stderrTail)")
        XCTAssertTrue(measured.stdoutTail.contains("✗ exit 1: merge gate failed"), measured.stdoutTail)
        XCTAssertLessThan(measured.peakKilobytes, limitKilobytes, "peak RSS of pipe report (\(measured.method))")
        let junit = try String(contentsOf: work.appending("out/junit.xml"), encoding: .utf8)
        XCTAssertEqual(
            junit.components(separatedBy: "<testcase ").count - 1, generator.tests, "every test made it to JUnit")
        XCTAssertEqual(junit.components(separatedBy: "<failure ").count - 1, generator.failures)
        let seconds = measured.seconds
        XCTAssertGreaterThan(measured.bytesWritten, megabytes << 20)
        print(
            "pipe report read \(measured.bytesWritten / 1_000_000) MB in \(String(format: "%.2f", seconds)) s "
                + "(\(String(format: "%.0f", Double(measured.bytesWritten) / 1_000_000 / seconds)) MB/s), "
                + "peak RSS \(measured.peakKilobytes / 1024) MB (\(measured.method))")
    }
}

/// An xcodebuild log made on the fly: mostly build output (long compiler command lines), a few thousand serial
/// XCTest results with a failure every thousand tests, lines of megabytes without a break, and the final blocks.
struct LargeLog {
    let megabytes: Int
    /// About 70 tests per megabyte fit in the blocks the log is made of.
    var tests: Int { megabytes * 70 / 1000 * 1000 }
    var failures: Int { tests / 1000 }

    init(megabytes: Int) {
        self.megabytes = megabytes
    }

    /// Writes the whole log; returns the bytes written.
    func write(to handle: FileHandle) throws -> Int {
        var noise = ""
        for index in 0..<2_000 {
            noise +=
                "CompileSwift normal arm64 /Users/ci/work/App/Sources/Feature\(index % 97)/View\(index).swift "
                + "(in target 'Feature\(index % 97)' from project 'App')\n    cd /Users/ci/work/App\n"
                + "    /Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/bin/"
                + "swift-frontend -c -primary-file /Users/ci/work/App/Sources/View\(index).swift -module-name App\n"
        }
        let noiseBlock = Data(noise.utf8)
        let longLine = Data((String(repeating: "x", count: 3 << 20) + "\n").utf8)
        let target = megabytes << 20
        var written = 0
        var test = 0
        var block = 0
        while written < target {
            var lines = ""
            for _ in 0..<100 where test < tests {
                let name = "-[AppTests.Suite\(test % 200) testCase\(test)]"
                lines += "Test Case '\(name)' started.\n"
                if test % 1000 == 7 {
                    lines += "/Users/ci/work/App/Tests/Suite\(test % 200).swift:\(test % 300): error: \(name) : "
                    lines += "XCTAssertEqual failed: (\"1\") is not equal to (\"2\")\n"
                    lines += "Test Case '\(name)' failed (0.004 seconds).\n"
                } else {
                    lines += "Test Case '\(name)' passed (0.001 seconds).\n"
                }
                test += 1
            }
            for chunk in [Data(lines.utf8), noiseBlock] + (block % 40 == 39 ? [longLine] : []) {
                try handle.write(contentsOf: chunk)
                written += chunk.count
            }
            block += 1
        }
        var tail = "\nTest session results, code coverage, and logs:\n\t/Users/ci/work/App/results.xcresult\n\n"
        tail += "Failing tests:\n"
        for failed in stride(from: 7, to: tests, by: 1000) { tail += "\tSuite\(failed % 200).testCase\(failed)()\n" }
        tail += "\n** TEST FAILED **\n"
        try handle.write(contentsOf: Data(tail.utf8))
        return written + tail.utf8.count
    }
}

/// Runs a process with input written by a closure while it runs, and measures its peak resident memory:
/// `/usr/bin/time -f %M` when the machine has GNU time, else (or with `PIPE_PEAK_MEMORY_FROM_PROC=1`) `VmHWM`
/// polled from `/proc/<pid>/status`.
enum PeakMemory {
    struct Measurement {
        var exitCode: Int32
        var bytesWritten: Int
        var peakKilobytes: Int
        var seconds: Double
        var method: String
        var stdoutTail: String
        var stderrTail: String
    }

    static func run(
        _ executable: URL, _ arguments: [String], currentDirectory: URL, input: @escaping (FileHandle) throws -> Int
    ) throws -> Measurement {
        signal(SIGPIPE, SIG_IGN)
        let report = currentDirectory.appendingPathComponent("peak-rss.txt")
        let gnuTime =
            FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
            && ProcessInfo.processInfo.environment["PIPE_PEAK_MEMORY_FROM_PROC"] == nil
        let process = Process()
        if gnuTime {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
            process.arguments = ["-f", "%M", "-o", report.path, executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = ["CI": "true", "PATH": "/usr/bin:/bin"]
        process.currentDirectoryURL = currentDirectory
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let tails = Tails()
        // Blocking reads on threads of their own: `readabilityHandler`'s dispatch sources crashed libdispatch now
        // and then when cleared while the process ended.
        let readers = DispatchGroup()
        for (handle, add) in [
            (stdout.fileHandleForReading, tails.add(out:)), (stderr.fileHandleForReading, tails.add(err:)),
        ] {
            readers.enter()
            Thread.detachNewThread {
                while case let data = handle.availableData, !data.isEmpty { add(data) }
                readers.leave()
            }
        }
        let started = Date()
        try process.run()
        let polled = gnuTime ? nil : Poller(pid: process.processIdentifier)
        var writeError: Error?
        var bytesWritten = 0
        do {
            bytesWritten = try input(stdin.fileHandleForWriting)
        } catch {
            writeError = error
        }
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        readers.wait()
        if let writeError { throw writeError }
        let peak: Int
        if gnuTime {
            let text = try String(contentsOf: report, encoding: .utf8)
            peak = Int(text.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? Int.max
        } else {
            peak = polled?.stop() ?? Int.max
        }
        return Measurement(
            exitCode: process.terminationStatus, bytesWritten: bytesWritten, peakKilobytes: peak, seconds: seconds,
            method: gnuTime ? "/usr/bin/time" : "/proc VmHWM", stdoutTail: tails.out, stderrTail: tails.err)
    }

    /// The last few kilobytes of each stream.
    final class Tails: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var out = ""
        private(set) var err = ""

        func add(out data: Data) { add(data, to: \.out) }
        func add(err data: Data) { add(data, to: \.err) }

        private func add(_ data: Data, to field: ReferenceWritableKeyPath<Tails, String>) {
            lock.lock()
            defer { lock.unlock() }
            self[keyPath: field] = String((self[keyPath: field] + String(decoding: data, as: UTF8.self)).suffix(4000))
        }
    }

    /// Reads `VmHWM` (the high-water mark of resident memory) every 20 ms until stopped.
    final class Poller: @unchecked Sendable {
        private let lock = NSLock()
        private var peak = 0
        private var running = true

        init(pid: Int32) {
            let path = "/proc/\(pid)/status"
            Thread.detachNewThread { [self] in
                while isRunning {
                    if let text = try? String(contentsOfFile: path, encoding: .utf8),
                        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
                    {
                        record(kilobytes)
                    }
                    usleep(20_000)
                }
            }
        }

        private var isRunning: Bool {
            lock.lock()
            defer { lock.unlock() }
            return running
        }

        private func record(_ kilobytes: Int) {
            lock.lock()
            peak = max(peak, kilobytes)
            lock.unlock()
        }

        func stop() -> Int {
            lock.lock()
            defer { lock.unlock() }
            running = false
            return peak
        }
    }
}

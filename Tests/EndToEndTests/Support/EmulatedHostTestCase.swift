import Foundation
import PipeTestSupport
import XCTest

/// What end-to-end tests against an emulated Mac share: a fresh emulated Mac host per test in canned mode (starting one
/// takes ~0.2 s, and a test that kills `pipe` mid-run must not leave its remote processes to the next test), a
/// project, and `pipe` processes started in the background to be watched, killed or followed.
class EmulatedHostTestCase: XCTestCase {
    var host: EmulatedMacHost!
    var hostState: TemporaryDirectory!
    /// Hosts a test added (`addSecondHost`), stopped and removed with the first.
    private var extraHosts: [(host: EmulatedMacHost, state: TemporaryDirectory)] = []

    /// `canned` replays recorded results; `real` compiles and runs the example's tests on the host.
    class var hostMode: String { "canned" }

    override func setUpWithError() throws {
        hostState = try TemporaryDirectory(prefix: "pipe-e2e-host")
        host = try EmulatedMacHost(name: "mac-1", stateDirectory: hostState.url)
        var config = try host.readConfig()
        config["mode"] = Self.hostMode
        try host.writeConfig(config)
    }

    override func tearDown() {
        for extra in extraHosts {
            extra.host.stop()
            extra.state.remove()
        }
        extraHosts = []
        host?.stop()
        hostState?.remove()
        super.tearDown()
    }

    // MARK: - Projects

    /// One `logic` layer of the Reader example's quickest tests, on an iPhone 15.
    static let oneLogicLayerPipeline = """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 15
        layers:
          logic:
            plugin: xcodebuild-test
            scheme: Reader
            only-testing: [ReaderTests/ReadingIDTests]
        """

    func makeProject(pipeline: String? = nil) throws -> PipeProject {
        try PipeProject(host: host, pipeline: pipeline)
    }

    /// Starts a second emulated Mac, `mac-2`, in this test's mode, and writes `project`'s hosts file with both.
    /// Both log in as the same user of this machine: mac-2 gets its own work folder, as a second Mac has its own disk.
    func addSecondHost(to project: PipeProject) throws -> EmulatedMacHost {
        let state = try TemporaryDirectory(prefix: "pipe-e2e-host-2")
        let second: EmulatedMacHost
        do {
            second = try EmulatedMacHost(name: "mac-2", stateDirectory: state.url)
        } catch {
            state.remove()
            throw error
        }
        extraHosts.append((second, state))
        var config = try second.readConfig()
        config["mode"] = Self.hostMode
        try second.writeConfig(config)
        try project.writeHostsFile(host.hostsFileEntry() + second.hostsFileEntry())
        return second
    }

    /// Changes the canned results of the Reader scheme (`edit` gets its `tests` array) and commits the change.
    func editCannedTests(
        in project: PipeProject, message: String, _ edit: (inout [[String: Any]]) throws -> Void
    ) throws {
        try editReaderScheme(in: project, message: message) { reader in
            var tests = try XCTUnwrap(reader["tests"] as? [[String: Any]])
            try edit(&tests)
            reader["tests"] = tests
        }
    }

    /// Changes the canned results of the Reader scheme (`edit` gets its whole entry) and commits the change.
    func editReaderScheme(
        in project: PipeProject, message: String, _ edit: (inout [String: Any]) throws -> Void
    ) throws {
        try editCannedResults(in: project, message: message) { schemes in
            var reader = try XCTUnwrap(schemes["Reader"] as? [String: Any])
            try edit(&reader)
            schemes["Reader"] = reader
        }
    }

    /// Makes the Reader scheme's build fail with `ReadingID.swift:7:9: error: cannot find 'maxLength'`.
    func breakReaderBuild(in project: PipeProject) throws {
        try editReaderScheme(in: project, message: "a build error") { reader in
            reader["buildErrors"] = [
                [
                    "file": "Sources/Reader/ReadingID.swift", "line": 7, "column": 9,
                    "message": "cannot find 'maxLength'",
                ]
            ]
        }
    }

    /// Changes the canned results' `schemes` object and commits the change.
    func editCannedResults(
        in project: PipeProject, message: String, _ edit: (inout [String: Any]) throws -> Void
    ) throws {
        let path = "examples/reader-app/pipe-canned-results.json"
        let data = try Data(contentsOf: project.url.appendingPathComponent(path))
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var schemes = try XCTUnwrap(json["schemes"] as? [String: Any])
        try edit(&schemes)
        json["schemes"] = schemes
        let text = String(
            decoding: try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]),
            as: UTF8.self)
        try project.commit(path, text, message: message)
    }

    /// Makes the first test of `suite` take `seconds` (really slept by the emulator) and commits it.
    func makeFirstTest(of suite: String, take seconds: Double, in project: PipeProject) throws {
        try editCannedTests(in: project, message: "\(suite) takes \(seconds) s") { tests in
            let index = try XCTUnwrap(tests.firstIndex { $0["suite"] as? String == suite }, "no suite \(suite)")
            tests[index]["duration"] = seconds
        }
    }

    // MARK: - Processes

    /// The built `pipe` running in the background in a project folder, its output collected with arrival times.
    final class BackgroundPipe {
        let process = Process()
        private let lock = NSLock()
        private var out = Data()
        private var err = Data()
        private(set) var stdoutChunks: [(at: Date, text: String)] = []
        private let outPipe = Pipe()
        private let errPipe = Pipe()
        let arguments: [String]

        init(_ arguments: [String], in project: PipeProject, environment extra: [String: String] = [:]) throws {
            self.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["CI"] = "true"
            environment.removeValue(forKey: "SIM_UDID")
            for (key, value) in extra { environment[key] = value }
            process.executableURL = RepositoryPaths.pipeBinary
            process.arguments = arguments
            process.environment = environment
            process.currentDirectoryURL = project.url
            process.standardOutput = outPipe
            process.standardError = errPipe
            process.standardInput = FileHandle.nullDevice
            outPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self, !data.isEmpty else { return }
                self.lock.lock()
                self.out.append(data)
                self.stdoutChunks.append((Date(), String(decoding: data, as: UTF8.self)))
                self.lock.unlock()
            }
            errPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self, !data.isEmpty else { return }
                self.lock.lock()
                self.err.append(data)
                self.lock.unlock()
            }
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }

        /// How it ended and what it printed.
        struct Ended {
            var exitCode: Int32
            var stdout: String
            var stderr: String
            var combined: String { "--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)" }
        }

        /// Waits for the process to end (killing it after `timeout` seconds) and returns what it printed.
        @discardableResult
        func wait(timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) -> Ended {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning {
                XCTFail(
                    "`pipe \(arguments.joined(separator: " "))` still runs after \(timeout) s", file: file, line: line)
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            outPipe.fileHandleForReading.readabilityHandler = nil
            errPipe.fileHandleForReading.readabilityHandler = nil
            let restOut = outPipe.fileHandleForReading.readDataToEndOfFile()
            let restErr = errPipe.fileHandleForReading.readDataToEndOfFile()
            lock.lock()
            defer { lock.unlock() }
            if !restOut.isEmpty {
                out.append(restOut)
                stdoutChunks.append((Date(), String(decoding: restOut, as: UTF8.self)))
            }
            err.append(restErr)
            return Ended(
                exitCode: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                stderr: String(decoding: err, as: UTF8.self))
        }

        /// What it wrote to stderr so far.
        func stderrSoFar() -> String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: err, as: UTF8.self)
        }

        /// The output chunks so far.
        func chunks() -> [(at: Date, text: String)] {
            lock.lock()
            defer { lock.unlock() }
            return stdoutChunks
        }
    }

    /// Polls `condition` every 50 ms until it holds; fails the test after `timeout` seconds, with `context` (what
    /// the process under test said, say) in the message.
    func waitUntil(
        _ what: String, timeout: TimeInterval = 60, context: @autoclosure () -> String = "",
        file: StaticString = #filePath,
        line: UInt = #line, _ condition: () throws -> Bool
    ) rethrows {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let said = String(context().suffix(4000))
        XCTFail(
            "timed out after \(timeout) s waiting until \(what)\(said.isEmpty ? "" : "\n" + said)", file: file,
            line: line)
    }

    /// Kills the sshd processes serving this host's open connections, as a network drop would; with
    /// `alsoTheListener`, the listener too, as if the host went away.
    func dropConnections(alsoTheListener: Bool = false) throws {
        let dropped = try sshdConnections.drop(alsoTheListener: alsoTheListener)
        XCTAssertGreaterThan(dropped, 0, "no connection to drop")
    }

    /// The host's open SSH connections, seen from its sshd.
    var sshdConnections: SSHDaemonConnections {
        SSHDaemonConnections(pidFile: host.stateDirectory.appendingPathComponent("sshd.pid"))
    }

    /// Waits until a run that was not among `earlier` run folders has started `layer`'s tests on the host (its log
    /// shows the test suite), and returns that run's folder.
    @discardableResult
    func waitUntilTestsRun(
        in project: PipeProject, layer: String, notAmong earlier: [URL] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) -> URL? {
        var runFolder: URL?
        waitUntil("layer \(layer) of a new run runs its tests", file: file, line: line) {
            guard let folder = project.runFolders().last(where: { !earlier.contains($0) }),
                let log = try? String(
                    contentsOf: folder.appendingPathComponent("\(layer)/xcodebuild.log"), encoding: .utf8)
            else { return false }
            runFolder = folder
            return log.contains("Test Suite")
        }
        return runFolder
    }

    // MARK: - The host

    /// Processes on the host whose command line mentions `text` (zombies, which run nothing, left out).
    func hostProcesses(mentioning text: String) throws -> [String] {
        let listing = try host.inspect("ps -eo pid=,stat=,args=")
        return listing.stdout.split(separator: "\n").map(String.init).filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 2 && !fields[1].hasPrefix("Z") && line.contains(text) && !line.contains("ps -eo")
        }
    }

    /// Kills, by pid, the host processes a test left behind on purpose (a coordinator killed with -9 stops nothing).
    func killHostProcesses(mentioning text: String) throws {
        let pids = try hostProcesses(mentioning: text).compactMap { $0.split(separator: " ").first.map(String.init) }
        guard !pids.isEmpty else { return }
        _ = try host.inspect("kill -9 \(pids.joined(separator: " ")) 2>/dev/null; true")
    }

    func assertNoProcess(inGroup group: String, file: StaticString = #filePath, line: UInt = #line) throws {
        // A zombie (state Z) has already exited and only waits to be reaped: it runs nothing.
        let listing = try host.inspect("ps -eo pgid=,stat=,pid=,args=")
        let members = listing.stdout.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            return fields.count > 1 && fields[0] == group && !fields[1].hasPrefix("Z")
        }
        XCTAssertEqual(members, [], "processes of group \(group) still run on the host", file: file, line: line)
    }

    // MARK: - Reading output

    /// `pipe <arguments> --json` parsed.
    func json(
        _ project: PipeProject, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws -> Any {
        let result = try project.pipe(arguments + ["--json"])
        XCTAssertEqual(result.exitCode, 0, result.combined, file: file, line: line)
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    func record(ofRun folder: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.appendingPathComponent("summary.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

import Foundation

/// Real mode: builds the workspace's Swift package with `swift build --build-tests` and runs its XCTest binary,
/// translating both outputs into Xcode's shapes as the lines arrive.
///
/// The test binary is run directly rather than through `swift test`, which holds the test process's output
/// back until it ends; run directly, XCTest flushes every line, so a hung or slow test shows up live as it
/// would from a Mac. The scratch path lies inside the DerivedData the build is given (`DerivedDataState`), so the
/// same folder again recompiles only what changed and a fresh one builds everything, as on a Mac.
final class SwiftTestRunner: TestRunner {
    let workspace: TestWorkspace
    let swift: String
    let scratchPath: String
    private let environment: [String: String]
    private let output: EmulatorOutput
    private let architecture: String
    private let interrupts: InterruptMonitor?
    /// Test targets the scheme runs; nil runs every test target of the package.
    private let schemeTargets: [String]?
    /// `-enableCodeCoverage YES`: the build is instrumented (`swift build --enable-code-coverage`).
    private let codeCoverage: Bool

    init(
        workspace: TestWorkspace, swift: String, scratchPath: String, environment: [String: String],
        output: EmulatorOutput, architecture: String, interrupts: InterruptMonitor?, schemeTargets: [String]?,
        codeCoverage: Bool = false
    ) {
        self.codeCoverage = codeCoverage
        self.workspace = workspace
        self.swift = swift
        self.scratchPath = scratchPath
        self.environment = environment
        self.output = output
        self.architecture = architecture
        self.interrupts = interrupts
        self.schemeTargets = schemeTargets
    }

    var binPath: String { scratchPath + "/debug" }

    var testTargets: [String] {
        if let schemeTargets { return schemeTargets }
        let tests = workspace.root.appendingPathComponent("Tests").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: tests)) ?? []).sorted().filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: tests + "/" + $0, isDirectory: &isFolder)
                && isFolder.boolValue
        }
    }

    func build() throws -> BuildOutcome {
        var translator = SwiftBuildTranslator(workspace: workspace, architecture: architecture, binPath: binPath)
        output.line("Prepare packages")
        output.line()
        let termination = try runChild(
            swift,
            ["build", "--build-tests", "--package-path", workspace.root.path, "--scratch-path", scratchPath]
                + (codeCoverage ? ["--enable-code-coverage"] : [])
        ) { line, _ in
            for translated in translator.translate(line) { output.line(translated) }
        }
        guard termination.succeeded else {
            var errors = translator.errors
            if errors.isEmpty {
                let reasons =
                    translator.generalErrors.isEmpty
                    ? ["swift build failed (\(termination))"] : translator.generalErrors
                errors = reasons.map { .init(file: nil, line: nil, column: nil, message: $0) }
            }
            var commands = BuildLogLine.failedCommands(
                for: translator.errors, workspace: workspace, architecture: architecture)
            if commands.isEmpty {
                commands = ["Building workspace \(workspace.containerName) with scheme (package build)"]
            }
            return BuildOutcome(succeeded: false, errors: errors, failedCommands: commands)
        }
        return BuildOutcome(succeeded: true)
    }

    func runTests(selection: TestSelection, reporter: XCTestReporter) throws -> TestRunProblem? {
        let binary = try testBinary()
        removeProfiles()
        var listed: [TestIdentity] = []
        // Listing runs no test, but an instrumented binary still writes a profile: one that is never merged.
        let listing = try runChild(binary, ["--list-tests"], profile: profileFolder + "/listing.unmerged") { line, _ in
            if let identity = Self.parseListed(line) { listed.append(identity) }
        }
        guard listing.succeeded else {
            throw XcodebuildError.toolchain("\(binary) --list-tests failed (\(listing))")
        }
        let selected = listed.filter { test in
            (schemeTargets.map { $0.contains(test.target) } ?? true) && selection.includes(test)
        }
        var suiteTargets: [String: String] = [:]
        for test in listed where suiteTargets[test.suite] == nil { suiteTargets[test.suite] = test.target }
        let targets = Set(selected.map(\.target))
        let bundle = targets.count == 1 ? "\(targets.first!).xctest" : "\(workspace.packageName)PackageTests.xctest"
        let topSuite = selection.isFiltered ? "Selected tests" : "All tests"
        if selected.isEmpty {
            // The XCTest binary runs everything when given no names, so an empty selection never reaches it.
            let now = XCTestReporter.timestamp()
            reporter.suiteStarted(topSuite, timestamp: now)
            reporter.suiteFinished(topSuite, passed: true, timestamp: now)
            reporter.executed(total: 0, skipped: 0, failures: 0, unexpected: 0, testSeconds: 0, wallSeconds: 0)
            return nil
        }
        let binaryName = URL(fileURLWithPath: binary).lastPathComponent
        var remaining = selected
        var launches = 0
        // Like Xcode, a crashed test process is relaunched for the tests that have not run yet.
        while !remaining.isEmpty {
            let names = remaining.map { "\($0.target).\($0.suite)/\($0.name)" }.joined(separator: ",")
            let translator = LinuxXCTestTranslator(
                reporter: reporter, suiteTargets: suiteTargets, bundleName: bundle,
                topSuiteName: launches == 0 ? topSuite : "Selected tests")
            let everything = launches == 0 && selected.count == listed.count
            var pid: pid_t = 0
            let termination = try runChild(
                binary, everything ? [] : [names], profile: profileFolder + "/pipe-%p.profraw"
            ) { line, child in
                pid = child.pid
                translator.consume(line)
                // The crash fault, in-process: end the test process as the emulator's own death would.
                if reporter.stopRequested { kill(child.pid, SIGKILL) }
            }
            launches += 1
            if reporter.stopRequested { return nil }
            guard case .signaled = termination else {
                if case .exited(let code) = termination, code != 0, reporter.failedTests.isEmpty {
                    return TestRunProblem(
                        suite: bundle, message: "Test process exited with code \(code) without reporting a failure",
                        test: nil)
                }
                return nil
            }
            let crashed = reporter.runningTest
            let crash = "Crash: \(binaryName) (\(pid))" + (crashed.map { " \($0.failingTestsName)" } ?? "")
            reporter.caseCrashed(reason: crash)
            let finished = Set(reporter.tests.map(\.identity))
            remaining = remaining.filter { !finished.contains($0) }
            if !remaining.isEmpty, launches > Self.maximumRestarts {
                return TestRunProblem(
                    suite: crashed?.suite ?? bundle,
                    message: "Exceeded max restart count of \(Self.maximumRestarts). (Underlying Error: \(crash))",
                    test: crashed)
            }
        }
        return nil
    }

    /// Xcode relaunches a crashed test process twice before giving up on the rest.
    static let maximumRestarts = 2

    /// Linux XCTest has no attachments; coverage is measured when the run asked for it (`SwiftTestRunner+Coverage`).
    func evidence(codeCoverage: Bool, tests: [ResultBundleRecord.TestCase]) -> TestEvidence {
        TestEvidence(coverage: codeCoverage ? measuredCoverage() : nil)
    }

    /// `ReaderTests.ReadingIDTests/testTrims` → its identity.
    static func parseListed(_ line: String) -> TestIdentity? {
        let parts = line.split(separator: "/")
        guard parts.count == 2, let dot = parts[0].firstIndex(of: ".") else { return nil }
        let target = String(parts[0][..<dot])
        let suite = String(parts[0][parts[0].index(after: dot)...])
        guard !target.isEmpty, !suite.isEmpty, !suite.contains("."), !parts[1].contains(" ") else { return nil }
        return TestIdentity(target: target, suite: suite, name: String(parts[1]))
    }

    func testBinary() throws -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: binPath)) ?? []
        let preferred = "\(workspace.packageName)PackageTests.xctest"
        if names.contains(preferred) { return "\(binPath)/\(preferred)" }
        guard let any = names.sorted().first(where: { $0.hasSuffix(".xctest") }) else {
            throw XcodebuildError.toolchain(
                "no test binary (*.xctest) in \(binPath) after swift build --build-tests; does the package have test "
                    + "targets?")
        }
        return "\(binPath)/\(any)"
    }

    /// `profile`: where a test process writes its coverage profile, never the workspace (an instrumented binary's
    /// default is `default.profraw` in its working folder).
    private func runChild(
        _ executable: String, _ arguments: [String], profile: String? = nil, line: (String, ChildProcess) -> Void
    ) throws -> ChildProcess.Termination {
        let child: ChildProcess
        do {
            var childEnvironment = environment
            // A Mac writes a crash report to a file; Swift's Linux backtracer would flood the log instead.
            if childEnvironment["SWIFT_BACKTRACE"] == nil { childEnvironment["SWIFT_BACKTRACE"] = "enable=no" }
            if let profile { childEnvironment["LLVM_PROFILE_FILE"] = profile }
            // The host's PATH offers only macOS's own tools; the toolchain, like Xcode's on a Mac, finds its
            // linker and helpers in its own folder and the system's.
            let toolchainFolder = swift.contains("/") ? [(swift as NSString).deletingLastPathComponent] : []
            let hostPath = environment["PATH"].map { [$0] } ?? []
            childEnvironment["PATH"] = (toolchainFolder + hostPath + ["/usr/local/bin", "/usr/bin", "/bin"])
                .joined(separator: ":")
            child = try ChildProcess.spawn(
                executable: executable, arguments: arguments, environment: childEnvironment,
                workingDirectory: workspace.root.path)
        } catch {
            throw XcodebuildError.toolchain("\(error)")
        }
        interrupts?.track(child: child.pid)
        child.forEachLine { line($0, child) }
        let termination = child.wait()
        interrupts?.track(child: nil)
        if let interrupts, interrupts.isInterrupted { interrupts.parkForever() }
        return termination
    }
}

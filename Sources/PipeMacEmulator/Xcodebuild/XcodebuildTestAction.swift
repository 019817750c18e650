import Foundation
import PipeBasics

/// `xcodebuild test …`: checks in xcodebuild's order (each failure with Apple's text and exit code), then builds,
/// runs the tests, writes the result bundle and prints the summary and banner (apple-formats.md 3.1–3.9, 4).
///
/// `build-for-testing` stops after the build, leaving the test products and an `.xctestrun` in derived data
/// (`TestProducts`) and printing `** TEST BUILD SUCCEEDED **`; `test-without-building` needs those products
/// (without them it stops as Xcode does) and runs only the tests, ending with `** TEST EXECUTE … **`.
struct XcodebuildTestAction {
    /// Which of the three test actions runs.
    enum Action: String {
        case test
        case buildForTesting = "build-for-testing"
        case testWithoutBuilding = "test-without-building"

        /// The word of the banner: `** TEST SUCCEEDED **`, `** TEST BUILD …`, `** TEST EXECUTE …`.
        var bannerAction: String {
            switch self {
            case .test: return "TEST"
            case .buildForTesting: return "TEST BUILD"
            case .testWithoutBuilding: return "TEST EXECUTE"
            }
        }
    }

    let context: EmulatorContext
    let arguments: XcodebuildArguments
    let commandLine: [String]
    var action: Action = .test

    private var stdout: EmulatorOutput { context.stdout }
    private var stderr: EmulatorOutput { context.stderr }

    /// Exit status after the crash fault when running in-process (the binary dies by SIGKILL instead).
    static let crashExitCode: Int32 = 128 + 9

    func run() -> Int32 {
        guard let (config, configURL) = context.loadHost() else { return EmulatorContext.configurationExitCode }
        if let delay = config.faultSettings.startDelaySeconds, delay > 0 {
            Thread.sleep(forTimeInterval: delay)
        }
        do {
            return try perform(config: config, configURL: configURL)
        } catch let error as XcodebuildError {
            stderr.line(error.message)
            return error.exitCode
        } catch {
            stderr.line("xcodebuild: error: \(error)")
            return 74
        }
    }

    private func perform(config: EmulatedHostConfig, configURL: URL) throws -> Int32 {
        guard let scheme = arguments.scheme else { throw XcodebuildError.missingScheme }
        // Xcode 13 brought the retry of failed tests; an older xcodebuild does not know the option.
        if arguments.testOptions["-retry-tests-on-failure"] != nil,
            (Int(config.xcode.version.prefix { $0 != "." }) ?? 0) < 13
        {
            throw XcodebuildError.invalidOption("-retry-tests-on-failure")
        }
        if let given = arguments.resultBundlePath {
            // Checked before any work: an existing path (even an empty folder) makes xcodebuild stop at once.
            if FileManager.default.fileExists(atPath: context.absolutePath(given))
                || config.faultSettings.resultBundlePathExists == true
            {
                throw XcodebuildError.existingResultBundle(given)
            }
        }
        let workspace = try Self.resolveWorkspace(arguments, context: context)
        guard config.sharedSchemes.contains(scheme) else {
            throw XcodebuildError.schemeNotFound(
                containerKind: workspace.containerKind, containerName: workspace.containerName, scheme: scheme)
        }
        if (config.schemesWithoutTestAction ?? []).contains(scheme) {
            throw XcodebuildError.noTestAction(scheme: scheme)
        }
        guard !arguments.destinations.isEmpty else { throw XcodebuildError.missingDestination }
        let inventory = try HostInventory.load(config: config, configURL: configURL, environment: context.environment)
        var chosen: HostInventory.Device?
        for text in arguments.destinations {
            let specifier = DestinationSpecifier(text)
            let matches = specifier.matches(in: inventory)
            guard let first = matches.first else {
                throw XcodebuildError.destinationNotFound(
                    specifier: specifier.echo, scheme: scheme,
                    available: DestinationSpecifier.availableDestinations(in: inventory))
            }
            if matches.count > 1 {
                stderr.line("--- xcodebuild: WARNING: Using the first of multiple matching destinations:")
                for match in matches { stderr.line(DestinationSpecifier.line(for: match)) }
            }
            chosen = chosen ?? first
        }
        guard let destination = chosen else { throw XcodebuildError.missingDestination }
        let products = TestProducts(
            derivedData: URL(fileURLWithPath: derivedDataPath(config: config, workspace: workspace), isDirectory: true))
        if action == .testWithoutBuilding, products.xctestrun(scheme: scheme) == nil {
            throw XcodebuildError.noTestProducts(scheme: scheme, productsFolder: products.productsFolder.path)
        }
        // The build goes into the DerivedData it is given, as Xcode's does: a fresh one builds cold, a moved one
        // from nothing again.
        if action != .testWithoutBuilding {
            _ = try DerivedDataState.prepare(derivedData: products.derivedData, source: workspace.root)
        }
        let runner = try makeRunner(
            config: config, workspace: workspace, scheme: scheme, derivedData: products.derivedData)
        return try execute(
            config: config, configURL: configURL, workspace: workspace, scheme: scheme,
            destination: destinationRecord(destination, inventory: inventory), device: destination, runner: runner,
            products: products)
    }

    /// The run's timeline once every check passed: from "Command line invocation:" to the banner.
    private func execute(
        config: EmulatedHostConfig, configURL: URL, workspace: TestWorkspace, scheme: String,
        destination: ResultBundleRecord.Destination, device: HostInventory.Device, runner: TestRunner,
        products: TestProducts
    ) throws -> Int32 {
        let started = Date()
        let bundlePath =
            arguments.resultBundlePath.map(context.absolutePath)
            ?? defaultBundlePath(config: config, workspace: workspace, scheme: scheme, at: started)
        stdout.line("Command line invocation:")
        stdout.line("    \(Self.invocation(commandLine))")
        stdout.line()
        if arguments.resultBundlePath != nil {
            stdout.line("Writing result bundle at path:")
            stdout.line("\t\(bundlePath)")
            stdout.line()
        }
        try ResultBundle.create(at: bundlePath)
        // build-for-testing needs no simulator: it only builds.
        if action != .buildForTesting, config.faultSettings.simulatorBootFailure == true {
            stderr.line(
                "\(Self.logPrefix()) Failed to boot \(device.name) (\(device.udid)): Unable to boot the Simulator.")
            stdout.line()
            stdout.line("Test session results, code coverage, and logs:")
            stdout.line("\t\(bundlePath)")
            stdout.line()
            stdout.line("Testing failed:")
            stdout.line("\tUnable to boot the Simulator.")
            stdout.line()
            stdout.line("** \(action.bannerAction) FAILED **")
            return 65
        }
        if action != .buildForTesting {
            // Like xcodebuild, boot the destination simulator when it is shut down.
            try Simctl.boot(device, store: SimulatorStateStore(configURL: configURL), failIfBooted: false)
        }

        var record = ResultBundleRecord(
            scheme: scheme, containerName: workspace.containerName, xcodeVersion: config.xcode.version,
            xcodeBuild: config.xcode.build, macOSVersion: config.macOSVersion.version,
            startTime: started.timeIntervalSince1970, finishTime: 0,
            destination: destination, buildSucceeded: false, buildErrors: [],
            tests: [])

        if action == .testWithoutBuilding {
            // The products are already there: nothing is built, so no build lines and no build time.
            record.buildSucceeded = true
        } else {
            context.interrupts?.setPhase(banner: "** BUILD INTERRUPTED **")
            let build = try runner.build()
            record.buildSucceeded = build.succeeded
            record.buildErrors = build.errors
            guard build.succeeded else {
                record.finishTime = Date().timeIntervalSince1970
                if let failure = saveBundle(record, at: bundlePath, created: started, config: config) { return failure }
                context.interrupts?.setPhase(banner: nil)
                if action == .buildForTesting {
                    printTestBuildFailure(build)
                } else {
                    printBuildFailure(build, bundlePath: bundlePath)
                }
                return 65
            }
            if action == .buildForTesting {
                try products.write(
                    scheme: scheme, targets: runner.testTargets, sdkVersion: destination.osVersion,
                    architecture: config.hostArchitecture)
                record.finishTime = Date().timeIntervalSince1970
                if let failure = saveBundle(record, at: bundlePath, created: started, config: config) { return failure }
                context.interrupts?.setPhase(banner: nil)
                stdout.line()
                stdout.line(
                    "** TEST BUILD SUCCEEDED ** [\(String(format: "%.3f", Date().timeIntervalSince(started))) sec]")
                stdout.line()
                return 0
            }
        }

        if let early = config.faultSettings.testRunnerEarlyExit, early.contains("*") || early.contains(device.udid) {
            record.finishTime = Date().timeIntervalSince1970
            if let failure = saveBundle(record, at: bundlePath, created: started, config: config) { return failure }
            printEarlyUnexpectedExit(target: runner.testTargets.first ?? scheme + "Tests", bundlePath: bundlePath)
            return 65
        }
        context.interrupts?.setPhase(banner: "** TEST INTERRUPTED **")
        let reporter = XCTestReporter(output: stdout)
        var crashed = false
        if let crashAfter = config.faultSettings.crashMidTest {
            reporter.onTestFinished = { [interrupts = context.interrupts] finished in
                guard finished >= crashAfter, !crashed else { return }
                interrupts?.crashNow()
                crashed = true
                reporter.stopRequested = true
            }
        }
        let testsStarted = Date()
        if config.faultSettings.crashMidTest == 0 { reporter.onTestFinished?(0) }
        let problem = crashed ? nil : try runner.runTests(selection: selection, reporter: reporter)
        if crashed { return Self.crashExitCode }
        if config.faultSettings.hangAfterTests == true {
            while true { Thread.sleep(forTimeInterval: 3600) }
        }
        let elapsed = Date().timeIntervalSince(testsStarted)
        observerDebugLines(elapsed: elapsed)

        record.tests = reporter.tests
        record.testRunError = problem?.message
        let evidence = runner.evidence(codeCoverage: arguments.enableCodeCoverage, tests: reporter.tests)
        record.coverage = evidence.coverage
        record.attachments = ResultBundle.storeAttachments(evidence.attachments, in: bundlePath)
        record.finishTime = Date().timeIntervalSince1970
        if let failure = saveBundle(record, at: bundlePath, created: started, config: config) { return failure }

        context.interrupts?.setPhase(banner: nil)
        stdout.line()
        stdout.line()
        stdout.line("Test session results, code coverage, and logs:")
        stdout.line("\t\(bundlePath)")
        stdout.line()
        if let problem {
            stdout.line("Testing failed:")
            stdout.line("\tRun test suite \(problem.suite) encountered an error (\(problem.message))")
            stdout.line()
        }
        // The test that was running when the process gave up is reported above, not under "Failing tests:" (3.8).
        let failing = reporter.failedTests.filter { $0.identity != problem?.test }
        if !failing.isEmpty {
            stdout.line()
            stdout.line("Failing tests:")
            for test in failing { stdout.line("\t\(test.identity.failingTestsName)") }
            stdout.line()
        }
        let total = Date().timeIntervalSince(started)
        let succeeded = failing.isEmpty && problem == nil
        if succeeded {
            stdout.line("** \(action.bannerAction) SUCCEEDED ** [\(String(format: "%.3f", total)) sec]")
        } else {
            stdout.line("** \(action.bannerAction) FAILED **")
        }
        stdout.line()
        stdout.line()
        // With pipes, xcodebuild's own "Testing started" line often lands after the banner (3.1).
        stdout.line("Testing started")
        return succeeded ? 0 : 65
    }

    private var selection: TestSelection {
        TestSelection(onlyTesting: arguments.onlyTesting, skipTesting: arguments.skipTesting)
    }

    /// Writes the bundle, or prints the disk-full fault's error and returns its exit status.
    private func saveBundle(
        _ record: ResultBundleRecord, at path: String, created: Date, config: EmulatedHostConfig
    ) -> Int32? {
        if config.faultSettings.diskFullOnBundle == true {
            stderr.line(
                "\(Self.logPrefix()) Error writing result bundle: Error Domain=NSPOSIXErrorDomain Code=28 "
                    + "\"No space left on device\"")
            stderr.line(
                "xcodebuild: error: Could not save the result bundle at \"\(path)\": No space left on device")
            return 74
        }
        do {
            try ResultBundle.finish(at: path, record: record, created: created)
            return nil
        } catch {
            stderr.line("xcodebuild: error: Could not save the result bundle at \"\(path)\": \(error)")
            return 74
        }
    }

    private func printBuildFailure(_ build: BuildOutcome, bundlePath: String) {
        stdout.line()
        stdout.line("Test session results, code coverage, and logs:")
        stdout.line("\t\(bundlePath)")
        stdout.line()
        stdout.line()
        stdout.line("Testing failed:")
        var seen = Set<String>()
        for error in build.errors where seen.insert(error.message).inserted {
            // Xcode's summary capitalizes the compiler's message.
            stdout.line("\t\(error.message.prefix(1).uppercased())\(error.message.dropFirst())")
        }
        stdout.line("\tTesting cancelled because the build failed.")
        stdout.line()
        stdout.line("** TEST FAILED **")
        printFailedCommands(build)
    }

    /// The list that ends every failed build's output, after the banner.
    private func printFailedCommands(_ build: BuildOutcome) {
        stdout.line()
        stdout.line()
        stdout.line("The following build commands failed:")
        for command in build.failedCommands { stdout.line("\t\(command)") }
        stdout.line("(\(build.failedCommands.count) failure\(build.failedCommands.count == 1 ? "" : "s"))")
    }

    /// `build-for-testing` that failed: the banner, then the failed commands (as `xcodebuild build` prints them).
    private func printTestBuildFailure(_ build: BuildOutcome) {
        stdout.line()
        stdout.line("** TEST BUILD FAILED **")
        printFailedCommands(build)
    }

    private func observerDebugLines(elapsed: Double) {
        let seconds = String(format: "%.3f", elapsed)
        let prefix = "\(Self.logPrefix()) [MT] IDETestOperationsObserverDebug:"
        stderr.line("\(prefix) \(seconds) elapsed -- Testing started completed.")
        stderr.line("\(prefix) 0.000 sec, +0.000 sec -- start")
        stderr.line("\(prefix) \(seconds) sec, +\(seconds) sec -- end")
    }

    /// `2023-10-31 16:00:10.469 xcodebuild[91460:12396780]`, the NSLog prefix of xcodebuild's stderr lines.
    /// What Xcode 10 prints when the test runner exits before its first test (`apple-formats.md` Part 2 §6).
    private func printEarlyUnexpectedExit(target: String, bundlePath: String) {
        let early = "Early unexpected exit, operation never finished bootstrapping - no restart will be attempted"
        stderr.line(
            "\(Self.logPrefix()) Error Domain=IDETestOperationsObserverErrorDomain Code=6 \"\(early)\" "
                + "UserInfo={NSLocalizedDescription=\(early), NSUnderlyingError=0x7fdd1f417390 {Error "
                + "Domain=IDETestOperationsObserverErrorDomain Code=5 \"Test runner exited before starting test "
                + "execution.\"}}")
        stdout.line()
        stdout.line("Test session results, code coverage, and logs:")
        stdout.line("\t\(bundlePath)")
        stdout.line()
        stdout.line("Testing failed:")
        stdout.line("\tTest target \(target) encountered an error (\(early))")
        stdout.line()
        stdout.line("** \(action.bannerAction) FAILED **")
    }

    static func logPrefix() -> String {
        let pid = getpid()
        return "\(XCTestReporter.timestamp()) xcodebuild[\(pid):\(Int(pid) * 131 % 9_000_000 + 1_000_000)]"
    }

    private func destinationRecord(_ device: HostInventory.Device, inventory: HostInventory)
        -> ResultBundleRecord.Destination
    {
        ResultBundleRecord.Destination(
            udid: device.udid, name: device.name,
            modelName: inventory.deviceType(device.deviceTypeIdentifier)?.name ?? device.name,
            osVersion: device.runtime?.version ?? "", osBuild: device.runtime?.buildversion ?? "",
            platform: "iOS Simulator", architecture: inventory.config.hostArchitecture)
    }

    private func makeRunner(
        config: EmulatedHostConfig, workspace: TestWorkspace, scheme: String, derivedData: URL
    ) throws -> TestRunner {
        switch config.mode {
        case .canned:
            let canned = try CannedResults.load(root: workspace.root)
            guard let entry = canned.schemes[scheme] else {
                throw XcodebuildError.cannedResults(
                    "\(workspace.root.path)/\(CannedResults.fileName) has no entry for scheme \"\(scheme)\" (it has: "
                        + "\(canned.schemes.keys.sorted().joined(separator: ", "))); add one or unshare the scheme")
            }
            var runner = CannedTestRunner(
                scheme: entry, workspace: workspace, architecture: config.hostArchitecture, output: stdout,
                environment: context.environment)
            if arguments.testOptions["-retry-tests-on-failure"] != nil {
                // Xcode's default is 3 iterations when only the retry is asked for.
                runner.runsOfAFailingTest = max(1, Int(arguments.testOptions["-test-iterations"] ?? "3") ?? 3)
            }
            return runner
        case .real:
            let swift = context.environment[Emulator.swiftEnvironmentKey].flatMap { $0.isEmpty ? nil : $0 } ?? "swift"
            let resolvedSwift: String
            do {
                resolvedSwift = try ChildProcess.resolve(swift, environment: context.environment)
            } catch {
                throw XcodebuildError.toolchain("\(error)")
            }
            return SwiftTestRunner(
                workspace: workspace, swift: resolvedSwift,
                scratchPath: DerivedDataState.scratch(in: derivedData).path,
                environment: context.environment, output: stdout, architecture: config.hostArchitecture,
                interrupts: context.interrupts, schemeTargets: config.schemeTestTargets?[scheme],
                codeCoverage: arguments.enableCodeCoverage)
        }
    }

    /// `-derivedDataPath`, or the container's own folder under the host's DerivedData:
    /// `<DerivedData>/<Container>-<28 letters>`.
    private func derivedDataPath(config: EmulatedHostConfig, workspace: TestWorkspace) -> String {
        if let given = arguments.derivedDataPath { return context.absolutePath(given) }
        let derivedData = context.absolutePath(config.buildCache ?? "~/Library/Developer/Xcode/DerivedData")
        let letters = SHA256Digest.hex(of: Data(workspace.root.path.utf8)).prefix(28).map { digit -> Character in
            Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(Int(String(digit), radix: 16) ?? 0)))
        }
        return "\(derivedData)/\(workspace.containerName)-\(String(letters))"
    }

    /// `<derived data>/Logs/Test/Test-<Scheme>-YYYY.MM.DD_HH-MM-SS-+ZZZZ.xcresult`
    private func defaultBundlePath(config: EmulatedHostConfig, workspace: TestWorkspace, scheme: String, at date: Date)
        -> String
    {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy.MM.dd_HH-mm-ss-Z"
        return "\(derivedDataPath(config: config, workspace: workspace))/Logs/Test/"
            + "Test-\(scheme)-\(formatter.string(from: date)).xcresult"
    }

    /// Finds what xcodebuild builds: `-workspace`, `-project`, or the package / project in the working folder.
    static func resolveWorkspace(_ arguments: XcodebuildArguments, context: EmulatorContext) throws -> TestWorkspace {
        let manager = FileManager.default
        if let given = arguments.workspace ?? arguments.project {
            let path = context.absolutePath(given)
            guard manager.fileExists(atPath: path) else { throw XcodebuildError.containerMissing(given) }
            let url = URL(fileURLWithPath: path)
            if path.hasSuffix("/.swiftpm/xcode/package.xcworkspace") {
                // Xcode's generated workspace for a package: the package folder is the container.
                let root = url.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                return TestWorkspace(root: root, containerKind: "workspace", containerName: root.lastPathComponent)
            }
            return TestWorkspace(
                root: url.deletingLastPathComponent(),
                containerKind: arguments.workspace != nil ? "workspace" : "project",
                containerName: url.deletingPathExtension().lastPathComponent)
        }
        let root = context.currentDirectory
        if manager.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            return TestWorkspace(root: root, containerKind: "workspace", containerName: root.lastPathComponent)
        }
        let entries = ((try? manager.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
        if let found = entries.first(where: { $0.hasSuffix(".xcworkspace") })
            ?? entries.first(where: {
                $0.hasSuffix(".xcodeproj")
            })
        {
            let url = root.appendingPathComponent(found)
            return TestWorkspace(
                root: root, containerKind: found.hasSuffix(".xcworkspace") ? "workspace" : "project",
                containerName: url.deletingPathExtension().lastPathComponent)
        }
        throw XcodebuildError.noContainer(directory: root.path)
    }

    /// The "Command line invocation:" line: xcodebuild's full path and the arguments, quoted where needed.
    static func invocation(_ arguments: [String]) -> String {
        (["/Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild"] + quoted(arguments)).joined(separator: " ")
    }

    /// Each argument as xcodebuild shows it: in double quotes when it is empty or holds a space or shell character.
    static func quoted(_ arguments: [String]) -> [String] {
        arguments.map { argument -> String in
            guard argument.isEmpty || argument.contains(where: { " \"'\\$`".contains($0) }) else { return argument }
            return "\""
                + argument.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
    }
}

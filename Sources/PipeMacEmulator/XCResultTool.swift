/// The emulated `xcresulttool` (Xcode 16): `version`, `get test-results summary|tests --path X`, and the Xcode 16
/// refusal of legacy `get` without `--legacy`.
struct XCResultTool {
    let context: EmulatorContext

    private static let summaryUsage =
        "Usage: xcresulttool get test-results summary --path <path> [--test-plan-configuration <test-plan-configuration>] "
        + "[--format <format>] [--compact] [--schema] [--schema-version <schema-version>]"

    func run(_ arguments: [String]) -> Int32 {
        guard let (config, _) = context.loadHost() else { return EmulatorContext.configurationExitCode }
        guard let command = arguments.first else {
            context.stderr.line("OVERVIEW: Result bundle tool\n\nUSAGE: xcresulttool <subcommand>")
            return 64
        }
        switch command {
        case "version", "--version":
            context.stdout.line("xcresulttool version \(config.xcresulttoolVersion), format version 3.53 (current)")
            return 0
        case "get":
            return get(Array(arguments.dropFirst()))
        default:
            context.stderr.line("Error: Unknown subcommand '\(command)'.")
            context.stderr.line("Usage: xcresulttool <subcommand>\n  See 'xcresulttool --help' for more information.")
            return 64
        }
    }

    private func get(_ arguments: [String]) -> Int32 {
        guard arguments.first == "test-results", arguments.count >= 2 else {
            return legacyGet(arguments)
        }
        let report = arguments[1]
        guard report == "summary" || report == "tests" else {
            context.stderr.line(
                "Error: the emulated xcresulttool answers 'get test-results summary' and "
                    + "'get test-results tests' only (asked: \(report)).")
            return 64
        }
        var path: String?
        var compact = false
        var index = 2
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--path":
                guard index < arguments.count else { break }
                path = arguments[index]
                index += 1
            case "--format":
                guard index < arguments.count else { break }
                if arguments[index] != "json" {
                    context.stderr.line("Error: The value '\(arguments[index])' is invalid for '--format <format>'.")
                    return 64
                }
                index += 1
            case "--compact": compact = true
            case "--test-plan-configuration", "--schema-version": index += 1
            default:
                context.stderr.line("Error: Unknown option '\(argument)'")
                context.stderr.line(Self.summaryUsage.replacingOccurrences(of: "summary", with: report))
                return 64
            }
        }
        guard let path else {
            context.stderr.line("Error: Missing expected argument '--path <path>'")
            context.stderr.line(Self.summaryUsage.replacingOccurrences(of: "summary", with: report))
            context.stderr.line("  See 'xcresulttool get test-results \(report) --help' for more information.")
            return 64
        }
        let record: ResultBundleRecord
        do {
            record = try ResultBundle.read(at: context.absolutePath(path))
        } catch ResultBundleError.notABundle(let reason) {
            context.stderr.line(
                "Error: Error Domain=XCResultStorage.ResultBundleFactory.Error Code=0 \"Failed to create a new result "
                    + "bundle reader, underlying error: \(reason)\"")
            return 1
        } catch {
            context.stderr.line("Error: \(error)")
            return 1
        }
        let document = report == "summary" ? XCResultJSON.summary(record) : XCResultJSON.tests(record)
        context.stdout.write(
            document.rendered(AppleJSON.Style(sortsKeys: true, escapesSlashes: false, compact: compact)))
        return 0
    }

    /// `xcresulttool get [object] --format json --path …`: Xcode 16 requires `--legacy`; the emulator does not
    /// produce the legacy object graph at all.
    private func legacyGet(_ arguments: [String]) -> Int32 {
        if !arguments.contains("--legacy") {
            context.stderr.line(
                "Error: This command is deprecated and will be removed in a future release, --legacy flag is required to "
                    + "use it.")
            context.stderr.line(
                "Usage: xcresulttool get object [--legacy] --path <path> [--id <id>] [--version <version>] "
                    + "[--format <format>]")
            context.stderr.line("  See 'xcresulttool get object --help' for more information.")
            return 64
        }
        context.stderr.line(
            "Error: the emulated xcresulttool (pipe-mac-emulator) does not produce legacy objects; use "
                + "'xcresulttool get test-results summary --path <path>'.")
        return 1
    }
}

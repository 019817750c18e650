import Foundation

/// The emulated cloud Mac's developer tools as one multi-call program: the name it is called by (argv[0]'s
/// basename) picks the tool — `xcrun`, `xcodebuild`, `xcresulttool` or `simctl`. Called as `pipe-mac-emulator`,
/// the first argument names the tool instead.
///
/// Every invocation reads the host config from `$PIPE_EMULATOR_CONFIG`, so tests can rewrite it between runs.
/// Real mode finds `swift` through `$PIPE_EMULATOR_SWIFT`, else `PATH`.
public enum Emulator {
    /// Names the host config JSON file.
    public static let configEnvironmentKey = "PIPE_EMULATOR_CONFIG"
    /// Names the `swift` executable real mode uses (else `swift` from `PATH`).
    public static let swiftEnvironmentKey = "PIPE_EMULATOR_SWIFT"

    /// Runs one invocation and returns its exit status. `arguments[0]` is the program name.
    ///
    /// In-process runs install no signal handlers; the fault `crashMidTest` then ends the run with status 137
    /// instead of killing the calling process.
    public static func run(
        arguments: [String], environment: [String: String], currentDirectory: URL? = nil, stdout: EmulatorOutput,
        stderr: EmulatorOutput
    ) -> Int32 {
        let context = EmulatorContext(
            environment: environment,
            currentDirectory: currentDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
            stdout: stdout, stderr: stderr, interrupts: nil)
        return run(arguments: arguments, context: context)
    }

    /// The `pipe-mac-emulator` process: real stdout/stderr, signal handling like xcodebuild's, `exit`.
    public static func main() -> Never {
        let stdout = EmulatorOutput.fileDescriptor(1)
        let monitor = InterruptMonitor.install(stdout: stdout)
        let context = EmulatorContext(
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), stdout: stdout,
            stderr: .fileDescriptor(2), interrupts: monitor)
        exit(run(arguments: CommandLine.arguments, context: context))
    }

    static func run(arguments: [String], context: EmulatorContext) -> Int32 {
        let program = URL(fileURLWithPath: arguments.first ?? "pipe-mac-emulator").lastPathComponent
        var rest = Array(arguments.dropFirst())
        var tool = program
        if !["xcrun", "simctl", "security"].contains(program) && !Xcrun.tools.contains(program) {
            guard let first = rest.first else {
                context.stderr.line(
                    "usage: pipe-mac-emulator <xcrun|xcodebuild|xcresulttool|simctl> [arguments…] (or call it through "
                        + "a link with one of those names)")
                return 64
            }
            tool = first
            rest.removeFirst()
        }
        if tool == "xcrun" { return Xcrun(context: context).run(rest) }
        if tool == "security" { return Security(context: context).run(rest) }
        guard Xcrun.tools.contains(tool) else {
            context.stderr.line(
                "pipe-mac-emulator: unknown tool '\(tool)'; expected xcrun, xcodebuild, xcresulttool, xccov or simctl")
            return 64
        }
        return runTool(tool, rest, context: context)
    }

    static func runTool(_ tool: String, _ arguments: [String], context: EmulatorContext) -> Int32 {
        switch tool {
        case "simctl": return Simctl(context: context).run(arguments)
        case "xcodebuild": return Xcodebuild(context: context).run(arguments)
        case "xccov": return Xccov(context: context).run(arguments)
        default: return XCResultTool(context: context).run(arguments)
        }
    }
}

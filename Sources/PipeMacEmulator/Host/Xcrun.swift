/// The emulated `xcrun`: runs `simctl`, `xcodebuild`, `xcresulttool` and `xccov` (after xcrun's own options), answers
/// `--version` and `--find`, and refuses other tools with xcrun's message.
struct Xcrun {
    let context: EmulatorContext

    /// Tools this emulator provides behind `xcrun`.
    static let tools = ["simctl", "xcodebuild", "xcresulttool", "xccov"]

    func run(_ arguments: [String]) -> Int32 {
        var rest = arguments[...]
        while let option = rest.first, option.hasPrefix("-") {
            rest = rest.dropFirst()
            switch option {
            case "--version", "-version":
                context.stdout.line("xcrun version 70.")
                return 0
            case "--find", "-f":
                guard let tool = rest.first else { return usage() }
                guard Self.tools.contains(tool) else { return notFound(tool) }
                context.stdout.line(Self.path(of: tool))
                return 0
            case "--sdk", "-sdk", "--toolchain", "-toolchain":
                rest = rest.dropFirst()
            case "--show-sdk-path":
                context.stdout.line(
                    "/Applications/Xcode.app/Contents/Developer/Platforms/iPhoneSimulator.platform/Developer/SDKs/"
                        + "iPhoneSimulator.sdk")
                return 0
            case "--verbose", "-v", "--log", "-l", "--no-cache", "-n", "--kill-cache", "-k", "--run", "-r":
                break
            default:
                return usage()
            }
        }
        guard let tool = rest.first else { return usage() }
        guard Self.tools.contains(tool) else { return notFound(tool) }
        return Emulator.runTool(tool, Array(rest.dropFirst()), context: context)
    }

    static func path(of tool: String) -> String {
        tool == "xcodebuild"
            ? "/Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild"
            : "/Applications/Xcode.app/Contents/Developer/usr/bin/\(tool)"
    }

    private func notFound(_ tool: String) -> Int32 {
        context.stderr.line("xcrun: error: unable to find utility \"\(tool)\", not a developer tool or in PATH")
        return 72
    }

    private func usage() -> Int32 {
        context.stderr.line("Usage: xcrun [options] <tool name> ... arguments ...")
        return 64
    }
}

/// The errors the emulated `xcodebuild` stops with before building, with Apple's wording and exit codes
/// (apple-formats.md section 4). Each message goes to stderr.
enum XcodebuildError: Error, Equatable {
    case invalidOption(String)
    case missingValue(String)
    /// Emulator wording (no sample of Apple's): a test option's value it would not take.
    case invalidOptionValue(String, String, expected: String)
    case unknownAction(String)
    case projectAndWorkspace
    case unsupportedAction([String])
    case missingScheme
    case existingResultBundle(String)
    case containerMissing(String)
    case noContainer(directory: String)
    case schemeNotFound(containerKind: String, containerName: String, scheme: String)
    case noTestAction(scheme: String)
    case missingDestination
    case destinationNotFound(specifier: String, scheme: String, available: [String])
    /// `test-without-building` with no `build-for-testing` products for the scheme in derived data.
    case noTestProducts(scheme: String, productsFolder: String)
    /// Emulator-only: the workspace's canned results cannot be used.
    case cannedResults(String)
    /// Emulator-only: real mode could not start `swift`.
    case toolchain(String)

    /// sysexits values, as xcodebuild uses them.
    var exitCode: Int32 {
        switch self {
        case .invalidOption, .missingValue, .invalidOptionValue, .unknownAction, .projectAndWorkspace,
            .unsupportedAction, .missingScheme,
            .existingResultBundle, .missingDestination:
            return 64
        case .schemeNotFound, .noTestProducts: return 65
        case .containerMissing, .noContainer, .noTestAction: return 66
        case .destinationNotFound: return 70
        case .cannedResults, .toolchain: return EmulatorContext.configurationExitCode
        }
    }

    var message: String {
        switch self {
        case .invalidOption(let option):
            return "xcodebuild: error: invalid option '\(option)'\n\n" + XcodebuildError.usage
        case .missingValue(let option):
            return "xcodebuild: error: option '\(option)' requires an argument.\n\n" + XcodebuildError.usage
        case .invalidOptionValue(let option, let value, let expected):
            return "xcodebuild: error: option '\(option)' takes \(expected), not '\(value)'."
        case .unknownAction(let action):
            return "xcodebuild: error: Unknown build action '\(action)'."
        case .projectAndWorkspace:
            return "xcodebuild: error: You cannot specify both an Xcode 3 project and a workspace."
        case .unsupportedAction(let actions):
            let asked = actions.isEmpty ? "build (the default)" : actions.joined(separator: " ")
            return "xcodebuild: error: the emulated xcodebuild (pipe-mac-emulator) runs only the 'test', "
                + "'build-for-testing', 'test-without-building' and 'archive' actions (one at a time), "
                + "'-exportArchive', '-version' and '-list'; asked for: \(asked)."
        case .missingScheme:
            return "xcodebuild: error: The test action requires that the name of a scheme in the project is provided "
                + "using the \"-scheme\" option. The \"-list\" option can be used to find the names of the schemes in "
                + "the project."
        case .existingResultBundle(let path):
            return "xcodebuild: error: Existing file at -resultBundlePath \"\(path)\""
        case .containerMissing(let path):
            return "xcodebuild: error: '\(path)' does not exist."
        case .noContainer(let directory):
            return "xcodebuild: error: The directory \(directory) does not contain an Xcode project, workspace or "
                + "package."
        case .schemeNotFound(let kind, let name, let scheme):
            return "xcodebuild: error: The \(kind) named \"\(name)\" does not contain a scheme named \"\(scheme)\". "
                + "The \"-list\" option can be used to find the names of the schemes in the \(kind)."
        case .noTestAction(let scheme):
            return "xcodebuild: error: Scheme \(scheme) is not currently configured for the test action."
        case .missingDestination:
            return "xcodebuild: error: The test action needs a destination: pass "
                + "-destination 'platform=iOS Simulator,id=<UDID>' (this emulated Mac has iOS simulators only)."
        case .destinationNotFound(let specifier, let scheme, let available):
            var lines = [
                "xcodebuild: error: Unable to find a destination matching the provided destination specifier:",
                "\t\t\(specifier)",
                "",
                "\tThe requested device could not be found because no available devices matched the request.",
                "",
                "\tAvailable destinations for the \"\(scheme)\" scheme:",
            ]
            lines += available.map { "\t\t\($0)" }
            return lines.joined(separator: "\n")
        case .noTestProducts(let scheme, let folder):
            // Xcode's text when it finds no test bundle to run; the second line is the emulator's own hint.
            return "xcodebuild: error: There are no test bundles available to test.\n\t(pipe-mac-emulator) no "
                + ".xctestrun for scheme \"\(scheme)\" in \(folder): run build-for-testing with the same "
                + "-derivedDataPath first."
        case .cannedResults(let reason), .toolchain(let reason):
            return "xcodebuild: error: (pipe-mac-emulator) \(reason)"
        }
    }

    private static let usage = """
        Usage: xcodebuild [-project <projectname>] -scheme <schemeName> [-destination <destinationspecifier>]... \
        [-configuration <configurationname>] [-arch <architecture>]... [-sdk [<sdkname>|<sdkpath>]] \
        [-showBuildSettings [-json]] [<buildsetting>=<value>]... [<buildaction>]...
        """
}

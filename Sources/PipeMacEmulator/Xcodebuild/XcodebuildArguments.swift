/// An `xcodebuild` command line, parsed with Apple's syntax (single-dash options, `-only-testing:<id>`,
/// `NAME=value` build settings, actions as bare words).
struct XcodebuildArguments: Equatable {
    var actions: [String] = []
    var project: String?
    var workspace: String?
    var scheme: String?
    var destinations: [String] = []
    var resultBundlePath: String?
    /// `-enableCodeCoverage YES`.
    var enableCodeCoverage = false
    var derivedDataPath: String?
    var onlyTesting: [String] = []
    var skipTesting: [String] = []
    var buildSettings: [String] = []
    /// The test options Pipe has keys for (parallel testing, timeouts, retries), by option name, as given;
    /// `-retry-tests-on-failure` takes no value and is recorded as `YES`.
    var testOptions: [String: String] = [:]
    var configuration: String?
    /// `archive`'s output, or the archive `-exportArchive` reads.
    var archivePath: String?
    /// `-exportArchive` and its folder and options.
    var exportArchive = false
    var exportPath: String?
    var exportOptionsPlist: String?
    var showVersion = false
    var list = false
    var quiet = false

    static let actionNames: Set<String> = [
        "build", "build-for-testing", "analyze", "archive", "test", "test-without-building", "docbuild", "installsrc",
        "install", "clean",
    ]

    /// Options that take one value; accepted and ignored unless stored below.
    private static let valueOptions: Set<String> = [
        "-project", "-workspace", "-scheme", "-destination", "-resultBundlePath", "-derivedDataPath", "-configuration",
        "-sdk", "-testPlan", "-xcconfig", "-toolchain", "-arch", "-target", "-parallel-testing-enabled",
        "-parallel-testing-worker-count", "-maximum-parallel-testing-workers",
        "-maximum-concurrent-test-simulator-destinations",
        "-maximum-concurrent-test-device-destinations", "-test-iterations", "-test-timeouts-enabled",
        "-default-test-execution-time-allowance", "-maximum-test-execution-time-allowance", "-enableCodeCoverage",
        "-destination-timeout", "-clonedSourcePackagesDirPath", "-packageCachePath", "-only-test-configuration",
        "-skip-test-configuration", "-collect-test-diagnostics", "-testLanguage", "-testRegion", "-jobs",
        "-resultStreamPath", "-resultBundleVersion", "-enableAddressSanitizer", "-enableThreadSanitizer",
        "-enableUndefinedBehaviorSanitizer", "-test-repetition-relaunch-enabled", "-testProductsPath",
        "-xctestrun", "-only-testing", "-skip-testing", "-archivePath", "-exportPath", "-exportOptionsPlist",
    ]

    /// Options without a value.
    private static let flagOptions: Set<String> = [
        "-quiet", "-verbose", "-version", "-list", "-showsdks", "-showdestinations", "-showBuildSettings", "-json",
        "-allowProvisioningUpdates", "-allowProvisioningDeviceRegistration", "-skipPackagePluginValidation",
        "-skipMacroValidation", "-disableAutomaticPackageResolution", "-onlyUsePackageVersionsFromResolvedFile",
        "-skipUnavailableActions", "-hideShellScriptEnvironment", "-retry-tests-on-failure",
        "-run-tests-until-failure", "-parallelizeTargets", "-alltargets", "-usage", "-help", "-checkFirstLaunchStatus",
        "-skipPackageUpdates", "-disablePackageRepositoryCache", "-exportArchive",
    ]

    /// Test options whose value xcodebuild checks: `YES`/`NO`, or a whole number of at least 1.
    static let booleanTestOptions: Set<String> = ["-parallel-testing-enabled", "-test-timeouts-enabled"]
    static let countTestOptions: Set<String> = [
        "-parallel-testing-worker-count", "-maximum-parallel-testing-workers", "-test-iterations",
        "-default-test-execution-time-allowance", "-maximum-test-execution-time-allowance",
    ]

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) -> Result<XcodebuildArguments, XcodebuildError> {
        var parsed = XcodebuildArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if let identifier = suffix(of: argument, after: "-only-testing:") {
                parsed.onlyTesting.append(identifier)
                continue
            }
            if let identifier = suffix(of: argument, after: "-skip-testing:") {
                parsed.skipTesting.append(identifier)
                continue
            }
            if actionNames.contains(argument) {
                parsed.actions.append(argument)
                continue
            }
            if argument.hasPrefix("-") {
                // `-IDEPackageSupportUseBuiltinSCM=YES` style user defaults.
                if argument.contains("=") { continue }
                if flagOptions.contains(argument) {
                    switch argument {
                    case "-version": parsed.showVersion = true
                    case "-list": parsed.list = true
                    case "-quiet": parsed.quiet = true
                    case "-exportArchive": parsed.exportArchive = true
                    case "-retry-tests-on-failure": parsed.testOptions[argument] = "YES"
                    default: break
                    }
                    continue
                }
                guard valueOptions.contains(argument) else { return .failure(.invalidOption(argument)) }
                guard index < arguments.count else { return .failure(.missingValue(argument)) }
                let value = arguments[index]
                index += 1
                switch argument {
                case "-project": parsed.project = value
                case "-workspace": parsed.workspace = value
                case "-scheme": parsed.scheme = value
                case "-destination": parsed.destinations.append(value)
                case "-resultBundlePath": parsed.resultBundlePath = value
                case "-enableCodeCoverage": parsed.enableCodeCoverage = value == "YES"
                case "-derivedDataPath": parsed.derivedDataPath = value
                case "-configuration": parsed.configuration = value
                case "-archivePath": parsed.archivePath = value
                case "-exportPath": parsed.exportPath = value
                case "-exportOptionsPlist": parsed.exportOptionsPlist = value
                case "-only-testing": parsed.onlyTesting.append(value)
                case "-skip-testing": parsed.skipTesting.append(value)
                default: break
                }
                if booleanTestOptions.contains(argument) {
                    guard value == "YES" || value == "NO" else {
                        return .failure(.invalidOptionValue(argument, value, expected: "YES or NO"))
                    }
                    parsed.testOptions[argument] = value
                } else if countTestOptions.contains(argument) {
                    guard let count = Int(value), count >= 1 else {
                        return .failure(.invalidOptionValue(argument, value, expected: "a whole number of 1 or more"))
                    }
                    parsed.testOptions[argument] = value
                }
                continue
            }
            if argument.contains("=") {
                parsed.buildSettings.append(argument)
                continue
            }
            return .failure(.unknownAction(argument))
        }
        if parsed.project != nil, parsed.workspace != nil { return .failure(.projectAndWorkspace) }
        return .success(parsed)
    }

    private static func suffix(of argument: String, after prefix: String) -> String? {
        argument.hasPrefix(prefix) ? String(argument.dropFirst(prefix.count)) : nil
    }
}

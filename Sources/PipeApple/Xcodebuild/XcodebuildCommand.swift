import PipeBasics

/// An `xcodebuild` invocation built from typed arguments; `shellLine` is the one way it reaches a remote shell.
///
/// `xcodebuild <action> [-project P | -workspace W] -scheme S -destination 'platform=iOS Simulator,id=UDID'
/// [-derivedDataPath D] -resultBundlePath R [-only-testing:X]… [-skip-testing:X]… [-testPlan T] [-configuration C]
/// [option…] [KEY=VALUE]…`
///
/// Every value stays one argument: scheme names, test identifiers and paths come from YAML, chat messages and
/// environment variables, so nothing is pasted into a command line as text.
public struct XcodebuildCommand: Equatable, Sendable {
    /// `test` builds and tests; the other two split that in two runs.
    public enum Action: String, Sendable, CaseIterable {
        case test
        case buildForTesting = "build-for-testing"
        case testWithoutBuilding = "test-without-building"
    }

    /// What xcodebuild builds from; `.package` runs in a Swift package's folder with neither flag.
    public enum Container: Hashable, Sendable {
        case project(String)
        case workspace(String)
        case package
    }

    /// A run destination; only simulators by UDID for now (`platform=<family> Simulator,id=<UDID>`).
    public struct Destination: Equatable, Sendable {
        public let platform: String
        public let udid: String

        /// - Parameter platform: the platform family (`iOS`, `tvOS`, `watchOS`, `visionOS`; `xrOS` is accepted).
        public init(simulatorPlatform platform: String, udid: String) {
            self.platform = SimulatorRuntimeKey.family(platform)
            self.udid = udid
        }

        /// The `-destination` value, e.g. `platform=iOS Simulator,id=90052AC6-…`.
        public var specifier: String { "platform=\(platform) Simulator,id=\(udid)" }
    }

    /// A `KEY=VALUE` build setting override.
    public struct BuildSetting: Equatable, Sendable {
        public let name: String
        public let value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public let action: Action
    public let container: Container
    public let scheme: String
    public let destination: Destination
    public let resultBundlePath: String
    public let onlyTesting: [String]
    public let skipTesting: [String]
    public let testPlan: String?
    public let configuration: String?
    public let buildSettings: [BuildSetting]
    /// Where products and the `.xctestrun` go (`build-for-testing`) and are found (`test-without-building`);
    /// `nil` is Xcode's default folder for the container.
    public let derivedDataPath: String?
    /// Where Swift package checkouts go (`-clonedSourcePackagesDirPath`); `nil` is inside the DerivedData.
    public let clonedSourcePackagesPath: String?
    /// Options Pipe has keys for (`-parallel-testing-enabled YES`, `-test-iterations 3`, …) and the layer's own
    /// `xcodebuild-arguments`, each word one argument; `XcodebuildOwnedOptions` keeps Pipe's own out of the latter.
    public let options: [String]
    /// `-enableCodeCoverage YES`: a layer's `coverage:` asks for it (it slows the build and the tests).
    public var enablesCodeCoverage = false

    /// - Throws: `XcodebuildCommandError` for an empty scheme, path or identifier, a UDID that could change the
    ///   destination (anything but letters, digits and `-`), or a build setting name that is not an identifier.
    public init(
        action: Action = .test, container: Container, scheme: String, destination: Destination,
        resultBundlePath: String, onlyTesting: [String] = [], skipTesting: [String] = [], testPlan: String? = nil,
        configuration: String? = nil, buildSettings: [BuildSetting] = [], derivedDataPath: String? = nil,
        clonedSourcePackagesPath: String? = nil, options: [String] = []
    ) throws {
        guard !scheme.isEmpty else { throw XcodebuildCommandError.emptyValue("-scheme") }
        switch container {
        case .project(let path) where path.isEmpty: throw XcodebuildCommandError.emptyValue("-project")
        case .workspace(let path) where path.isEmpty: throw XcodebuildCommandError.emptyValue("-workspace")
        default: break
        }
        guard !resultBundlePath.isEmpty else { throw XcodebuildCommandError.emptyValue("-resultBundlePath") }
        guard !destination.udid.isEmpty,
            destination.udid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { throw XcodebuildCommandError.invalidUDID(destination.udid) }
        guard !destination.platform.isEmpty, !destination.platform.contains(where: { $0 == "," || $0 == "=" })
        else { throw XcodebuildCommandError.invalidPlatform(destination.platform) }
        if let empty = onlyTesting.firstIndex(where: \.isEmpty) {
            throw XcodebuildCommandError.emptyValue("-only-testing (entry \(empty + 1))")
        }
        if let empty = skipTesting.firstIndex(where: \.isEmpty) {
            throw XcodebuildCommandError.emptyValue("-skip-testing (entry \(empty + 1))")
        }
        if testPlan == "" { throw XcodebuildCommandError.emptyValue("-testPlan") }
        if configuration == "" { throw XcodebuildCommandError.emptyValue("-configuration") }
        if derivedDataPath == "" { throw XcodebuildCommandError.emptyValue("-derivedDataPath") }
        if clonedSourcePackagesPath == "" { throw XcodebuildCommandError.emptyValue("-clonedSourcePackagesDirPath") }
        if let empty = options.firstIndex(where: \.isEmpty) {
            throw XcodebuildCommandError.emptyValue("xcodebuild-arguments (entry \(empty + 1))")
        }
        for setting in buildSettings where !Self.isBuildSettingName(setting.name) {
            throw XcodebuildCommandError.invalidBuildSettingName(setting.name)
        }
        self.action = action
        self.container = container
        self.scheme = scheme
        self.destination = destination
        self.resultBundlePath = resultBundlePath
        self.onlyTesting = onlyTesting
        self.skipTesting = skipTesting
        self.testPlan = testPlan
        self.configuration = configuration
        self.buildSettings = buildSettings
        self.derivedDataPath = derivedDataPath
        self.clonedSourcePackagesPath = clonedSourcePackagesPath
        self.options = options
    }

    /// The argument vector, starting with `xcodebuild`.
    public var arguments: [String] {
        var arguments = ["xcodebuild", action.rawValue]
        switch container {
        case .project(let path): arguments += ["-project", path]
        case .workspace(let path): arguments += ["-workspace", path]
        case .package: break
        }
        arguments += ["-scheme", scheme, "-destination", destination.specifier]
        if let derivedDataPath { arguments += ["-derivedDataPath", derivedDataPath] }
        if let clonedSourcePackagesPath { arguments += ["-clonedSourcePackagesDirPath", clonedSourcePackagesPath] }
        arguments += ["-resultBundlePath", resultBundlePath]
        arguments += onlyTesting.map { "-only-testing:\($0)" }
        arguments += skipTesting.map { "-skip-testing:\($0)" }
        if let testPlan { arguments += ["-testPlan", testPlan] }
        if let configuration { arguments += ["-configuration", configuration] }
        if enablesCodeCoverage { arguments += ["-enableCodeCoverage", "YES"] }
        arguments += options
        arguments += buildSettings.map { "\($0.name)=\($0.value)" }
        return arguments
    }

    /// The command line for a POSIX shell, every argument quoted with `ShellQuote`.
    public var shellLine: String { ShellQuote.join(arguments) }

    /// xcodebuild reads an argument as a build setting only when it is `NAME=value` with an identifier name; any
    /// other name (one starting with `-` above all) would turn a value into an option.
    private static func isBuildSettingName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ($0.value >= 48 && $0.value <= 57)
        }
    }
}

/// A test command that cannot be built from the values given; nothing was run.
public enum XcodebuildCommandError: Error, Equatable, CustomStringConvertible, Sendable {
    case emptyValue(String)
    case invalidUDID(String)
    case invalidPlatform(String)
    case invalidBuildSettingName(String)

    public var description: String {
        switch self {
        case .emptyValue(let option):
            return "the xcodebuild option \(option) has an empty value; set it in the layer's settings"
        case .invalidUDID(let udid):
            return
                "'\(udid)' is not a simulator UDID (letters, digits and '-' only); pick one from "
                + "`xcrun simctl list devices available`"
        case .invalidPlatform(let platform):
            return "'\(platform)' is not a simulator platform; use iOS, tvOS, watchOS or visionOS"
        case .invalidBuildSettingName(let name):
            return
                "'\(name)' is not a build setting name (letters, digits and '_', not starting with a digit); "
                + "fix the layer's build settings"
        }
    }
}

import Foundation
import PipeBasics

/// What an emulated Mac host has, read from the JSON file named by `PIPE_EMULATOR_CONFIG` on every invocation.
///
/// The schema is documented in `emulator/README.md`; `emulator/hosts/default.json` is a complete example.
public struct EmulatedHostConfig: Codable, Equatable {
    /// The installed Xcode.
    public struct Xcode: Codable, Equatable {
        public var version: String
        public var build: String
        /// What `xcresulttool version` reports; 23021 and later have the `get test-results …` commands.
        public var xcresulttoolVersion: Int?
    }

    /// The host's macOS, shown in result summaries ("Built with macOS …").
    public struct MacOS: Codable, Equatable {
        public var version: String
        public var build: String
    }

    /// How `xcodebuild test` produces results.
    public enum Mode: String, Codable, Equatable {
        /// Replays `pipe-canned-results.json` from the workspace; nothing compiles.
        case canned
        /// Builds and runs the workspace's Swift package tests for real.
        case real
    }

    /// An installed simulator runtime.
    public struct Runtime: Codable, Equatable {
        public var identifier: String
        public var name: String
        public var version: String
        public var buildversion: String
        public var platform: String
        public var isAvailable: Bool?
        public var availabilityError: String?
    }

    /// A simulator device type; types not listed here come from a built-in catalog or from the simulators.
    public struct DeviceType: Codable, Equatable {
        public var identifier: String
        public var name: String
        public var productFamily: String?
        public var modelIdentifier: String?
        public var minRuntimeVersionString: String?
    }

    /// A simulator device. One whose runtime is not installed is unavailable, as on a real Mac.
    public struct Simulator: Codable, Equatable {
        public var udid: String
        public var name: String
        public var runtime: String
        public var deviceType: String
        public var state: String?
        public var available: Bool?
        public var availabilityError: String?
        public var lastBootedAt: String?
    }

    /// Failures to inject into `xcodebuild test`.
    public struct Faults: Codable, Equatable {
        /// Sleep this long before doing anything (a slow or overloaded host).
        public var startDelaySeconds: Double?
        /// After the last test, never finish (until killed).
        public var hangAfterTests: Bool?
        /// Kill the emulator with SIGKILL after this many tests finished: no banner, no bundle.
        public var crashMidTest: Int?
        /// Fail with "No space left on device" when the result bundle is saved.
        public var diskFullOnBundle: Bool?
        /// No simulator boots: `xcodebuild test` prints "Unable to boot the Simulator." under `Testing failed:`, no
        /// test runs, exit 65; `simctl boot` and `simctl bootstatus -b` of a shut-down device fail with
        /// CoreSimulator's launchd_sim error, exit 60.
        public var simulatorBootFailure: Bool?
        /// A slow boot: `simctl bootstatus` reports a device booted only this long after it was booted (by
        /// `simctl boot` or by `bootstatus -b` itself).
        public var simulatorBootSeconds: Double?
        /// Something already stands at `-resultBundlePath` on the host (exit 64 before any work).
        public var resultBundlePathExists: Bool?
        /// The test runner exits before its first test on these simulators (UDIDs; `*` for every one), as when the
        /// app crashes at launch or the runner cannot bootstrap: Xcode 10's "Early unexpected exit" lines under
        /// `Testing failed:`, no test runs, exit 65.
        public var testRunnerEarlyExit: [String]?
    }

    public var xcode: Xcode
    /// Further Xcodes by their `DEVELOPER_DIR` (e.g. `/Applications/Xcode-15.4.app/Contents/Developer`); a
    /// command run with that `DEVELOPER_DIR` sees that Xcode instead of `xcode`.
    public var otherXcodes: [String: Xcode]?
    public var macOS: MacOS?
    public var mode: Mode
    public var architecture: String?
    public var runtimes: [Runtime]
    public var deviceTypes: [DeviceType]?
    public var simulators: [Simulator]
    public var sharedSchemes: [String]
    public var schemesWithoutTestAction: [String]?
    /// Real mode: the test targets a scheme runs (all of the package's test targets when a scheme is not listed).
    public var schemeTestTargets: [String: [String]]?
    /// The host's DerivedData folder (`~/Library/Developer/Xcode/DerivedData` by default), for builds not given a
    /// `-derivedDataPath`.
    public var buildCache: String?
    public var faults: Faults?
    /// Whether `simctl … -j` escapes `/` as `\/` (both are seen from real Macs). Default: true.
    public var jsonEscapesSlashes: Bool?

    /// The version `xcresulttool version` prints: unless given, Xcode 16's first with `get test-results` (23021) for
    /// Xcode 16 and later, and Xcode 15.4's (22608) before.
    var xcresulttoolVersion: Int {
        if let version = xcode.xcresulttoolVersion { return version }
        let major = Int(xcode.version.prefix { $0.isNumber }) ?? 16
        return major >= 16 ? 23021 : 22608
    }
    var macOSVersion: MacOS { macOS ?? MacOS(version: "15.2", build: "24C101") }
    var hostArchitecture: String { architecture ?? "arm64" }
    var faultSettings: Faults { faults ?? Faults() }

    /// Reads and checks the config at `url`, listing every problem found.
    public static func load(from url: URL) throws -> EmulatedHostConfig {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw EmulatorConfigError.unreadable(path: url.path, reason: error.localizedDescription)
        }
        let config: EmulatedHostConfig
        do {
            config = try JSONDecoder().decode(EmulatedHostConfig.self, from: data)
        } catch let error as DecodingError {
            throw EmulatorConfigError.invalid(path: url.path, problems: [EmulatedHostConfig.describe(error)])
        } catch {
            throw EmulatorConfigError.invalid(path: url.path, problems: ["\(error)"])
        }
        var problems = EmulatedHostConfig.unknownKeys(in: data)
        problems += config.consistencyProblems()
        if !problems.isEmpty { throw EmulatorConfigError.invalid(path: url.path, problems: problems) }
        return config
    }

    /// Reads the config named by `PIPE_EMULATOR_CONFIG`.
    public static func load(environment: [String: String]) throws -> (EmulatedHostConfig, URL) {
        guard let path = environment[Emulator.configEnvironmentKey], !path.isEmpty else {
            throw EmulatorConfigError.notSet
        }
        let url = URL(fileURLWithPath: path)
        return (try load(from: url), url)
    }

    private func consistencyProblems() -> [String] {
        var problems: [String] = []
        var seen = Set<String>()
        for (index, simulator) in simulators.enumerated() {
            if UUID(uuidString: simulator.udid) == nil || simulator.udid != simulator.udid.uppercased() {
                problems.append("simulators[\(index)].udid '\(simulator.udid)' is not an uppercase UUID")
            }
            if !seen.insert(simulator.udid).inserted {
                problems.append("simulators[\(index)].udid '\(simulator.udid)' is used twice")
            }
            if let state = simulator.state, !SimulatorState.known.contains(state) {
                problems.append(
                    "simulators[\(index)].state '\(state)' is not one of \(SimulatorState.known.joined(separator: ", "))"
                )
            }
        }
        if let crash = faults?.crashMidTest, crash < 0 { problems.append("faults.crashMidTest must be 0 or more") }
        return problems
    }

    private static let knownKeys: [String: Set<String>] = [
        "": [
            "xcode", "macOS", "mode", "architecture", "runtimes", "deviceTypes", "simulators", "sharedSchemes",
            "schemesWithoutTestAction", "schemeTestTargets", "buildCache", "faults", "jsonEscapesSlashes",
            "otherXcodes",
        ],
        "xcode": ["version", "build", "xcresulttoolVersion"],
        "macOS": ["version", "build"],
        "faults": [
            "startDelaySeconds", "hangAfterTests", "crashMidTest", "diskFullOnBundle", "simulatorBootFailure",
            "resultBundlePathExists", "simulatorBootSeconds", "testRunnerEarlyExit",
        ],
        "runtimes": ["identifier", "name", "version", "buildversion", "platform", "isAvailable", "availabilityError"],
        "deviceTypes": ["identifier", "name", "productFamily", "modelIdentifier", "minRuntimeVersionString"],
        "simulators": [
            "udid", "name", "runtime", "deviceType", "state", "available", "availabilityError", "lastBootedAt",
        ],
    ]

    /// A misspelt key would otherwise be ignored silently and the scenario would not be the one a test asked for.
    private static func unknownKeys(in data: Data) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
        var problems: [String] = []
        func check(_ object: [String: Any], section: String, path: String) {
            guard let known = knownKeys[section] else { return }
            for key in object.keys.sorted() where !known.contains(key) {
                let hint = EditDistance.nearest(to: key, in: Array(known)).map { " (did you mean '\($0)'?)" } ?? ""
                problems.append("unknown key '\(path.isEmpty ? key : path + "." + key)'\(hint)")
            }
        }
        check(root, section: "", path: "")
        for section in ["xcode", "macOS", "faults"] {
            if let object = root[section] as? [String: Any] { check(object, section: section, path: section) }
        }
        for section in ["runtimes", "deviceTypes", "simulators"] {
            for (index, element) in ((root[section] as? [Any]) ?? []).enumerated() {
                if let object = element as? [String: Any] {
                    check(object, section: section, path: "\(section)[\(index)]")
                }
            }
        }
        return problems
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "(top level)" : text)
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "the top level" : "'\(path(context.codingPath))'"
            return "missing key '\(key.stringValue)' in \(parent)"
        case .typeMismatch(let type, let context):
            return "'\(path(context.codingPath))' should be \(type)"
        case .valueNotFound(let type, let context):
            return "'\(path(context.codingPath))' is null; expected \(type)"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return "not valid JSON (\(context.underlyingError.map { "\($0)" } ?? context.debugDescription))"
            }
            return "'\(path(context.codingPath))': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// The simulator states `simctl` reports.
enum SimulatorState {
    static let shutdown = "Shutdown"
    static let booted = "Booted"
    static let known = ["Shutdown", "Booted", "Booting", "Shutting Down", "Creating"]
}

/// Why the emulator could not read its host config.
public enum EmulatorConfigError: Error, CustomStringConvertible {
    case notSet
    case unreadable(path: String, reason: String)
    case invalid(path: String, problems: [String])

    public var description: String {
        switch self {
        case .notSet:
            return
                "pipe-mac-emulator: PIPE_EMULATOR_CONFIG is not set; point it at a host config JSON "
                + "(see emulator/README.md, e.g. emulator/hosts/default.json)"
        case .unreadable(let path, let reason):
            return "pipe-mac-emulator: cannot read the host config \(path): \(reason)"
        case .invalid(let path, let problems):
            return "pipe-mac-emulator: the host config \(path) is invalid:\n"
                + problems.map { "  - \($0)" }.joined(separator: "\n")
        }
    }
}

import Foundation

/// A validated pipeline: what to check out, where to run, and the verification layers.
///
/// Produced by `PipeSpec` from YAML with every `${param}` and `${ENV}` already interpolated; the engine never sees
/// raw text.
public struct Pipeline: Sendable, Equatable {
    /// The file's base name without `.yml` (`app-intents`), used in paths and records.
    public var name: String
    /// Where the pipeline was read from, for messages.
    public var sourcePath: String
    public var description: String?
    public var repository: RepositorySpec
    public var hostSelection: HostSelection
    public var simulator: SimulatorCriteria
    public var parameters: [String: String]
    public var layers: [LayerSpec]
    public var flakyPolicy: FlakyPolicy
    /// The pipeline's retry policy; a layer's `retry` overrides it field by field.
    public var retry: RetryPolicy
    /// At most this many layers run at a time (`concurrency:`); `nil` lets the engine choose (`LayerSchedule`).
    public var concurrency: Int?
    /// Secrets by name, and where the coordinator reads each; a layer names those it receives.
    public var secrets: [String: SecretSource]

    public init(
        name: String, sourcePath: String, description: String? = nil, repository: RepositorySpec,
        hostSelection: HostSelection = HostSelection(), simulator: SimulatorCriteria = SimulatorCriteria(),
        parameters: [String: String] = [:], layers: [LayerSpec], flakyPolicy: FlakyPolicy = .allow,
        retry: RetryPolicy = RetryPolicy(), concurrency: Int? = nil, secrets: [String: SecretSource] = [:]
    ) {
        self.name = name
        self.sourcePath = sourcePath
        self.description = description
        self.repository = repository
        self.hostSelection = hostSelection
        self.simulator = simulator
        self.parameters = parameters
        self.layers = layers
        self.flakyPolicy = flakyPolicy
        self.retry = retry
        self.concurrency = concurrency
        self.secrets = secrets
    }

    public func layer(named name: String) -> LayerSpec? { layers.first { $0.name == name } }
}

/// The repository to verify and the part of it that is uploaded to the host.
public struct RepositorySpec: Sendable, Equatable {
    /// A URL or a local path; `nil` means the project folder's own repository.
    public var location: String?
    /// Branch, tag, SHA or `HEAD`.
    public var ref: String
    /// The folder inside the repository that is the Xcode (or Swift package) workspace, e.g. `examples/reader-app`.
    public var workspacePath: String
    /// The pipeline file's `url` holds a `${…}`: a parameter or the environment chose the source, not the project
    /// (its code is then `untrusted`, `CodeOrigin`).
    public var locationIsInterpolated: Bool
    /// A pull or merge request's head (`refs/pull/7/head`) to fetch on its own before `ref` (its exact SHA) is
    /// resolved: set by the controller for a forge's pull request, never by a pipeline file.
    public var fetchRef: String?

    public init(
        location: String? = nil, ref: String = "HEAD", workspacePath: String = ".", locationIsInterpolated: Bool = false
    ) {
        self.location = location
        self.ref = ref
        self.workspacePath = workspacePath
        self.locationIsInterpolated = locationIsInterpolated
    }

    /// Where the code comes from, as far as the pipeline says: the project, unless a `${…}` chose the repository.
    public var origin: CodeOrigin {
        guard locationIsInterpolated, let location else { return .project }
        return .outside("the repository '\(location)', which a parameter or the environment chose")
    }
}

/// Which hosts a pipeline may run on: by name or by labels; empty means the first host of the hosts file.
public struct HostSelection: Sendable, Equatable {
    public var names: [String]
    public var labels: [String: String]

    public init(names: [String] = [], labels: [String: String] = [:]) {
        self.names = names
        self.labels = labels
    }
}

/// What simulator a pipeline wants: a UDID, or a device name and runtime.
public struct SimulatorCriteria: Sendable, Equatable {
    /// Platform family, e.g. `iOS`.
    public var platform: String
    /// A device name such as `iPhone 15`; `nil` accepts any device of the platform.
    public var deviceName: String?
    /// A runtime such as `iOS 17.5`, `17.5`, or `latest` (the default).
    public var runtime: String?
    /// An exact UDID: overrides the rest, and must name an available simulator.
    public var udid: String?
    /// When no simulator matches, create one of `deviceName` on `runtime` (`simctl create`), deleted when the run
    /// ends.
    public var create: Bool

    public init(
        platform: String = "iOS", deviceName: String? = nil, runtime: String? = nil, udid: String? = nil,
        create: Bool = false
    ) {
        self.platform = platform
        self.deviceName = deviceName
        self.runtime = runtime
        self.udid = udid
        self.create = create
    }
}

/// One verification layer as the pipeline declares it.
public struct LayerSpec: Sendable, Equatable {
    public var name: String
    /// The plugin kind that runs it, e.g. `xcodebuild-test`.
    public var plugin: String
    public var gate: Gate
    /// Layers that must pass before this one runs.
    public var needs: [String]
    /// The whole layer's time limit, in seconds.
    public var timeoutSeconds: Double?
    /// The plugin's own settings, validated against the plugin's schema.
    public var settings: [String: SettingValue]
    /// This layer's changes to the pipeline's retry policy.
    public var retry: RetryOverrides
    /// Names of the pipeline's secrets this layer receives on the host (never on a command line).
    public var secrets: [String]
    /// The most of its raw log the coordinator keeps (`log-limit`).
    public var logLimitBytes: Int64 = LayerLog.defaultLimitBytes
    /// The most its pulled-back artifacts may hold (`artifact-limit`).
    public var artifactLimitBytes: Int64 = LayerSpec.defaultArtifactLimitBytes
    /// Code coverage to measure and hold to a minimum (`coverage:`); `nil` leaves it off.
    public var coverage: CoverageRequirement?
    /// Build from nothing: the layer's build cache is wiped before it builds (`clean: true`).
    public var clean = false
    /// Build in the host's build cache of the run's identity (`build-cache:`, true by default); `false` builds in
    /// a fresh folder of the run, cold.
    public var buildCache = true

    /// The default cap of what one layer brings back: a big result bundle is a few hundred megabytes.
    public static let defaultArtifactLimitBytes: Int64 = 8 << 30
    /// The values its shell-command settings (`SettingSchema.isShellCommand`) refer to, by environment variable
    /// (`PIPE_PARAM_folder`): every parameter of the run, and the environment variables those settings name. A
    /// plugin hands them to the command with `CommandEnvironment`, never in its text.
    public var shellParameters: [String: String]

    public init(
        name: String, plugin: String, gate: Gate = .merge, needs: [String] = [], timeoutSeconds: Double? = nil,
        settings: [String: SettingValue] = [:], retry: RetryOverrides = RetryOverrides(), secrets: [String] = [],
        shellParameters: [String: String] = [:]
    ) {
        self.name = name
        self.plugin = plugin
        self.gate = gate
        self.needs = needs
        self.timeoutSeconds = timeoutSeconds
        self.settings = settings
        self.retry = retry
        self.secrets = secrets
        self.shellParameters = shellParameters
    }
}

/// A plugin setting's value after validation.
public enum SettingValue: Sendable, Equatable, Codable {
    case string(String)
    case integer(Int)
    case boolean(Bool)
    case strings([String])
    case map([String: String])

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var stringsValue: [String]? {
        switch self {
        case .strings(let values): return values
        case .string(let value): return [value]
        default: return nil
        }
    }
}

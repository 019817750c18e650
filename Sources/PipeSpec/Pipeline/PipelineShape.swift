import PipeCore

/// The keys of a pipeline file and their types: `PipelineDecoder` checks keys against these, and `pipe schema
/// pipeline` writes them (with each plugin's settings) as a JSON Schema.
public enum PipelineShape {
    static let platforms = ["iOS", "tvOS", "watchOS", "visionOS"]
    static let parameterName = "^[A-Za-z_][A-Za-z0-9_-]*$"
    static let secretName = "^[A-Za-z_][A-Za-z0-9_]*$"
    static let layerName = "^[a-z0-9][a-z0-9_-]*$"

    static let retry = MappingShape(
        "Retries per kind of failure and the first backoff",
        [
            KeyShape(
                "infrastructure", .integer(0...RetryPolicy.maximumRetries),
                "retries after a host or connection failure"),
            KeyShape("timed-out", .integer(0...RetryPolicy.maximumRetries), "retries after a timeout"),
            KeyShape("tests", .integer(0...RetryPolicy.maximumRetries), "how many more times a failed test may run"),
            KeyShape(
                "backoff", .either([.duration, .integer(0...0), .choice(["0", "0s"])]),
                "the wait before the first retry (0: none)"),
        ])
    static let secretSource = MappingShape(
        "Where the coordinator reads the secret: 'env:' or 'file:', never the value",
        [
            KeyShape("env", .nonEmptyText, "an environment variable of the coordinator"),
            KeyShape("file", .nonEmptyText, "a file on the coordinator"),
            KeyShape("type", .choice(["line", "file"]), "line (one line of text, the default) or file (binary)"),
        ])
    static let parameterDeclaration = MappingShape(
        "A parameter: a default, or required",
        [
            KeyShape(
                "default", .either([.text, .empty]), "the value when no --param gives one (empty: the empty text)"),
            KeyShape("required", .boolean, "true: every run must pass --param"),
            KeyShape("description", .text, "what the parameter is for"),
        ])
    static let repository = MappingShape(
        "The repository to verify",
        [
            KeyShape("url", .nonEmptyText, "clone URL or path (default: the project's own repository)"),
            KeyShape("ref", .nonEmptyText, "branch, tag or commit"),
            KeyShape("workspace", .nonEmptyText, "a folder inside the repository, relative, without '..'"),
        ])
    static let host = MappingShape(
        "Which hosts may run the pipeline",
        [
            KeyShape("name", .nonEmptyText, "one host of the hosts file"),
            KeyShape("names", .texts, "hosts of the hosts file"),
            KeyShape("labels", .textMap, "labels a host must carry"),
        ])
    static let simulator = MappingShape(
        "The simulator the layers run on",
        [
            KeyShape("platform", .choice(platforms), "the simulator's platform (default iOS)"),
            KeyShape("device", .nonEmptyText, "a device type such as iPhone 15"),
            KeyShape("runtime", .nonEmptyText, "latest, a version such as 17.5, or 'iOS 17.5'"),
            KeyShape("udid", .nonEmptyText, "one simulator; then device and runtime are ignored"),
            KeyShape("create", .boolean, "create the simulator when the host has none"),
        ])
    static let coverage = MappingShape(
        "Coverage to measure and require",
        [
            KeyShape("minimum", .text, "a percentage from 0 to 100, e.g. 80%"),
            KeyShape("targets", .texts, "the targets measured (default: all)"),
        ])
    static let layer = MappingShape(
        "A layer: the plugin that runs it and its settings",
        [
            KeyShape("plugin", .nonEmptyText, required: true, "the plugin kind that runs the layer"),
            KeyShape("gate", .choice(Gate.allCases.map(\.rawValue)), "merge (blocks a merge) or release"),
            KeyShape("needs", .texts, "layers that must pass first"),
            KeyShape("timeout", .duration, "how long one attempt may take"),
            KeyShape("retry", .mapping(retry), "retries of this layer"),
            KeyShape("secrets", .texts, "names under the pipeline's 'secrets:' this layer receives"),
            KeyShape("log-limit", .byteSize, "the most log kept"),
            KeyShape("artifact-limit", .byteSize, "the most artifacts kept"),
            KeyShape("coverage", .either([.boolean, .mapping(coverage)]), "true, or { minimum: 80%, targets: [...] }"),
            KeyShape("clean", .boolean, "wipe the layer's build cache first"),
            KeyShape("build-cache", .boolean, "build in the host's build cache (false: from nothing)"),
        ])

    static func top(layers: ValueShape) -> MappingShape {
        MappingShape(
            "A Pipe pipeline (pipelines/<name>.yml)",
            [
                KeyShape("description", .text, "what the pipeline verifies"),
                KeyShape("repository", .mapping(repository), "the repository to verify"),
                KeyShape("host", .either([.nonEmptyText, .mapping(host)]), "a host name, or which hosts may run it"),
                KeyShape("simulator", .mapping(simulator), "the simulator the layers run on"),
                KeyShape(
                    "parameters", .named(.either([.text, .mapping(parameterDeclaration)]), keyPattern: parameterName),
                    "values a run may set with --param, used as ${name}"),
                KeyShape("flaky", .choice([FlakyPolicy.allow.rawValue, FlakyPolicy.block.rawValue]), "allow or block"),
                KeyShape("retry", .mapping(retry), "retries of every layer"),
                KeyShape(
                    "concurrency", .integer(1...LayerSchedule.maximumConcurrency), "at most this many layers at a time"),
                KeyShape(
                    "secrets", .named(.mapping(secretSource), keyPattern: secretName),
                    "secrets by name, with where the coordinator reads each"),
                KeyShape("layers", layers, required: true, "the layers, by name"),
            ])
    }

    /// The top-level keys (the layers' shape does not matter for the key check).
    static let topLevelKeys = top(layers: .anything).keyNames

    /// The whole file, each layer taking the settings of its plugin.
    public static func file(plugins registry: [String: PluginSchema]) -> FileShape {
        let variants = registry.mapValues { MappingShape("", $0.settings.map(KeyShape.init)) }
        let layers = ValueShape.named(
            .tagged(key: "plugin", common: layer, variants: variants), keyPattern: layerName)
        return FileShape(kind: "pipeline", title: "Pipe pipeline", root: top(layers: layers), interpolates: true)
    }
}

extension KeyShape {
    /// A plugin setting as a layer key.
    init(_ setting: SettingSchema) {
        let value: ValueShape
        switch setting.type {
        case .string: value = setting.required ? .nonEmptyText : .text
        case .integer: value = .integer()
        case .boolean: value = .boolean
        case .strings: value = .texts
        case .map: value = .textMap
        case .record:
            value = .mapping(
                MappingShape(
                    "",
                    setting.fields.map { field in
                        switch field.kind {
                        case .integer: KeyShape(field.key, .integer(), "")
                        case .boolean: KeyShape(field.key, .boolean, "")
                        case .duration: KeyShape(field.key, .duration, "")
                        }
                    }))
        }
        self.init(setting.key, value, required: setting.required, setting.summary)
    }
}

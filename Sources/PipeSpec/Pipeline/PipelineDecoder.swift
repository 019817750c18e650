import PipeCore

/// Turns a pipeline file's tree into a `Pipeline`, collecting every problem on the way.
///
/// Parameters are read first (interpolation needs them), then every other section; references between layers
/// (`needs`) are checked once all layers are known.
struct PipelineDecoder {
    static let topLevelKeys = PipelineShape.topLevelKeys
    static let layerKeys = PipelineShape.layer.keyNames
    static let retryKeys = PipelineShape.retry.keyNames
    static let platforms = PipelineShape.platforms

    let name: String
    let file: String
    let registry: [String: PluginSchema]
    let parameters: [String: String]
    let environment: [String: String]
    let requirement: ParameterRequirement
    let problems: ProblemCollector

    /// A layer as decoded, with what is needed to check its `needs` afterwards.
    private struct DecodedLayer {
        var spec: LayerSpec
        var needs: [(text: String, node: YAMLNode, path: SpecKeyPath)]
        var secrets: [(text: String, node: YAMLNode, path: SpecKeyPath)]
    }

    func decode(_ root: YAMLNode?) -> Pipeline? {
        checkName()
        guard let root else {
            problems.error(SpecKeyPath(), at: .start, "the file is empty; a pipeline needs at least 'layers:'")
            return nil
        }
        problems.reportDuplicateKeys(in: root)
        let plain = SpecReader(problems: problems, interpolator: nil)
        guard let top = plain.mapping(root, at: SpecKeyPath(), expected: "a mapping of pipeline keys") else {
            return nil
        }
        top.rejectUnknownKeys(allowed: Self.topLevelKeys)

        let values = decodeParameters(top, plain: plain)
        let interpolator = Interpolator(parameters: values, environment: environment)
        let reader = SpecReader(problems: problems, interpolator: interpolator)
        let document = MappingReader(node: top.node, path: top.path, entries: top.entries, reader: reader)

        let description = document.read("description", { $0.string })
        let repository = decodeRepository(document)
        let host = decodeHost(document)
        let simulator = decodeSimulator(document)
        let flaky = document.read(
            "flaky", { reader in { reader.choice($0, at: $1, among: [FlakyPolicy.allow, .block]) } })
        let retry = decodeRetry(document)
        let concurrency = decodeConcurrency(document)
        let secrets = decodeSecrets(document)
        let layers = decodeLayers(document)
        checkNeeds(layers)
        checkSecrets(layers, declared: declaredSecretNames(document), decoded: secrets)
        for (parameter, entry) in declaredParameterKeys(top) where !interpolator.used.contains(parameter) {
            problems.warning(
                SpecKeyPath([.key("parameters"), .key(parameter)]), at: entry.start,
                "declared but never used; use it as '${\(parameter)}' or remove it")
        }

        guard !problems.hasErrors else { return nil }
        return Pipeline(
            name: name, sourcePath: file, description: description, repository: repository, hostSelection: host,
            simulator: simulator, parameters: values.compactMapValues { $0 }, layers: layers.map(\.spec),
            flakyPolicy: flaky ?? .allow, retry: retry.applied(to: RetryPolicy()), concurrency: concurrency,
            secrets: secrets)
    }

    /// `concurrency:` — at most this many layers at a time (1 runs them one after another).
    private func decodeConcurrency(_ document: MappingReader) -> Int? {
        guard let node = document.value("concurrency"),
            let value = document.reader.integer(node, at: document.path.appending("concurrency"))
        else { return nil }
        guard (1...LayerSchedule.maximumConcurrency).contains(value) else {
            problems.error(
                document.path.appending("concurrency"), at: node.start,
                "\(value) layers at a time: give a number from 1 to \(LayerSchedule.maximumConcurrency) (1 runs the "
                    + "layers one after another)")
            return nil
        }
        return value
    }

    /// `secrets:` — each name says where the coordinator reads the value (`env:` or `file:`), never the value.
    private func decodeSecrets(_ document: MappingReader) -> [String: SecretSource] {
        guard let node = document.value("secrets"),
            let mapping = document.reader.mapping(
                node, at: document.path.appending("secrets"), expected: "a mapping of secret names to sources")
        else { return [:] }
        var secrets: [String: SecretSource] = [:]
        for entry in mapping.entries {
            let path = mapping.path.appending(entry.key)
            if !SecretDelivery.isIdentifier(entry.key) {
                problems.error(
                    path, at: entry.keyNode.start,
                    "'\(entry.key)' cannot name a secret: it becomes an environment variable on the host; use "
                        + "letters, digits and '_' (e.g. API_TOKEN)")
            }
            guard
                let source = mapping.reader.mapping(
                    entry.value, at: path, expected: "a mapping with 'env:' or 'file:' (never the value itself)")
            else { continue }
            source.rejectUnknownKeys(allowed: PipelineShape.secretSource.keyNames)
            let variable = source.read("env", { $0.nonEmptyString })
            let file = source.read("file", { $0.nonEmptyString })
            let binary = decodeSecretType(source, path: path)
            if binary, variable != nil {
                problems.error(
                    path, at: entry.value.start, "a secret of type 'file' is read from 'file:', not from 'env:'")
            }
            switch (variable, file) {
            case (let variable?, nil): secrets[entry.key] = .environment(variable)
            case (nil, let file?): secrets[entry.key] = binary ? .binaryFile(file) : .file(file)
            case (_?, _?):
                problems.error(path, at: entry.value.start, "give 'env:' or 'file:', not both")
            case (nil, nil):
                problems.error(
                    path, at: entry.value.start,
                    "say where the value is read on the coordinator: 'env: VARIABLE' or 'file: path'")
            }
        }
        return secrets
    }

    /// `type: line` (the default: one line of text) or `type: file` (a binary file read whole); true for `file`.
    private func decodeSecretType(_ source: MappingReader, path: SpecKeyPath) -> Bool {
        guard let node = source.value("type") else { return false }
        let type = source.read("type", { $0.nonEmptyString })
        switch type {
        case "line": return false
        case "file": return true
        default:
            problems.error(
                path.appending("type"), at: node.start,
                "a secret's type is 'line' (one line of text, the default) or 'file' (a binary file read whole)")
            return false
        }
    }

    /// The names under `secrets:`, valid or not (a layer naming a broken one is not told it is undeclared).
    private func declaredSecretNames(_ document: MappingReader) -> [String] {
        guard let node = document.value("secrets"), case .mapping(let entries) = node.content else { return [] }
        return entries.compactMap { entry in
            if case .scalar(let scalar) = entry.key.content { return scalar.text }
            return nil
        }
    }

    /// Every secret a layer asks for is declared under `secrets:`, and a file secret goes only to a plugin that
    /// takes one (any other would silently get nothing).
    private func checkSecrets(_ layers: [DecodedLayer], declared: [String], decoded: [String: SecretSource]) {
        for layer in layers {
            for name in layer.secrets {
                guard case .binaryFile? = decoded[name.text], let schema = registry[layer.spec.plugin],
                    !schema.takesFileSecrets
                else { continue }
                problems.error(
                    name.path, at: name.node.start,
                    "'\(name.text)' is a secret of type 'file', and plugin '\(layer.spec.plugin)' takes only one-line "
                        + "secrets (type: line): it would reach the layer as nothing; give this layer a line secret, or "
                        + "the file to a plugin that signs")
            }
            for name in layer.secrets where !declared.contains(name.text) {
                let suggestion = SpecReader.suggestion(name.text, declared.sorted())
                problems.error(
                    name.path, at: name.node.start,
                    "no secret is named '\(name.text)' under 'secrets:'"
                        + (suggestion.isEmpty ? "; declare it there with 'env:' or 'file:'" : suggestion))
            }
        }
    }

    /// `retry:` of the pipeline or of a layer: retries per kind of failure (0–5) and the first backoff.
    private func decodeRetry(_ parent: MappingReader) -> RetryOverrides {
        guard let node = parent.value("retry"),
            let mapping = parent.reader.mapping(
                node, at: parent.path.appending("retry"),
                expected: "a mapping of retries (infrastructure, timed-out, tests, backoff)")
        else { return RetryOverrides() }
        mapping.rejectUnknownKeys(allowed: Self.retryKeys)
        func count(_ key: String) -> Int? {
            guard let node = mapping.value(key),
                let value = mapping.reader.integer(node, at: mapping.path.appending(key))
            else { return nil }
            guard (0...RetryPolicy.maximumRetries).contains(value) else {
                problems.error(
                    mapping.path.appending(key), at: node.start,
                    "\(value) retries: give a number from 0 to \(RetryPolicy.maximumRetries)")
                return nil
            }
            return value
        }
        // No wait at all is a fair backoff, though never a fair timeout: `0` and `0s` are taken here.
        var backoff: Double?
        if let node = mapping.value("backoff"), case .scalar(let scalar) = node.content,
            ["0", "0s"].contains(scalar.text.trimmingCharacters(in: .whitespaces))
        {
            backoff = 0
        } else {
            backoff = mapping.read("backoff", { $0.duration })
        }
        return RetryOverrides(
            infrastructure: count("infrastructure"), timedOut: count("timed-out"), tests: count("tests"),
            backoffSeconds: backoff)
    }

    /// The file name becomes the pipeline's name, which appears in folder and result-bundle names.
    private func checkName() {
        let allowed = name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
        }
        if name.isEmpty || !allowed || name.hasPrefix(".") {
            problems.error(
                SpecKeyPath(), at: nil,
                "'\(name)' cannot name a pipeline (it is used in folder names): rename the file with letters, "
                    + "digits, '.', '_' and '-'")
        }
    }

    // MARK: Parameters

    private func declaredParameterKeys(_ top: MappingReader) -> [(String, YAMLNode)] {
        guard let node = top.value("parameters"), let entries = node.mapping else { return [] }
        return entries.compactMap { entry in entry.key.keyText.map { ($0, entry.key) } }
    }

    /// Declared parameters with the run's values (`--param` over the file's default); `nil` for a required
    /// parameter that got none. Reports unknown `--param` names and missing required values.
    private func decodeParameters(_ top: MappingReader, plain: SpecReader) -> [String: String?] {
        let path = SpecKeyPath([.key("parameters")])
        let parametersKey = top.entries.first { $0.key == "parameters" }?.keyNode
        var values: [String: String?] = [:]
        if let node = top.value("parameters"), let mapping = plain.mapping(node, at: path) {
            for entry in mapping.entries {
                let parameterPath = path.appending(entry.key)
                guard Interpolator.isValidName(entry.key) else {
                    problems.error(
                        parameterPath, at: entry.keyNode.start,
                        "'\(entry.key)' cannot name a parameter: use letters, digits, '_' and '-', starting with a "
                            + "letter or '_'")
                    continue
                }
                let declared = decodeDeclaration(entry, at: parameterPath, plain: plain)
                var value = parameters[entry.key] ?? declared.defaultValue
                if let text = value, text.unicodeScalars.contains("\u{0}") {
                    let source = parameters[entry.key] != nil ? "--param \(entry.key)" : "its default"
                    problems.error(
                        parameterPath, at: entry.keyNode.start,
                        "the value of \(source) holds a NUL byte, which no command line or environment variable "
                            + "can carry; remove it")
                    value = nil
                }
                if let other = values.keys.first(where: {
                    Interpolator.shellVariable(for: $0) == Interpolator.shellVariable(for: entry.key)
                }) {
                    problems.error(
                        parameterPath, at: entry.keyNode.start,
                        "'\(entry.key)' and '\(other)' would both be the shell variable "
                            + "\(Interpolator.shellVariable(for: entry.key)) ('-' becomes '_'); rename one")
                }
                if value == nil, declared.isRequired {
                    switch requirement {
                    case .enforce:
                        problems.error(
                            parameterPath, at: entry.keyNode.start,
                            "required parameter has no value; pass --param \(entry.key)=VALUE")
                    case .warn:
                        problems.warning(
                            parameterPath, at: entry.keyNode.start,
                            "required parameter has no value here; 'pipe run' needs --param \(entry.key)=VALUE")
                    }
                }
                values[entry.key] = .some(value)
            }
        }
        for key in parameters.keys.sorted() where values[key] == nil {
            var message = "no parameter '\(key)' is declared"
            let suggestion = SpecReader.suggestion(key, Array(values.keys))
            if !suggestion.isEmpty {
                message += suggestion
            } else if values.isEmpty {
                message += "; this pipeline declares no parameters (declare it under 'parameters:')"
            } else {
                message += "; declared parameters: \(SpecReader.list(values.keys.sorted()))"
            }
            problems.error(SpecKeyPath([.key("--param \(key)")]), at: parametersKey?.start, message)
        }
        return values
    }

    private func decodeDeclaration(
        _ entry: MappingReader.Entry, at path: SpecKeyPath, plain: SpecReader
    ) -> (defaultValue: String?, isRequired: Bool) {
        let declaration: MappingReader
        switch entry.value.content {
        case .scalar(let scalar) where scalar.isText || scalar.resolved != .null:
            // `scheme: Reader` is short for `scheme: { default: Reader }`.
            return (plain.string(entry.value, at: path), false)
        case .scalar:
            problems.error(path, at: entry.keyNode.start, "give it a 'default:' or 'required: true'")
            return (nil, false)
        case .sequence:
            plain.mismatch(
                entry.value, at: path, expected: "a default value or a mapping with 'default:' or 'required:'")
            return (nil, false)
        case .mapping:
            guard let mapping = plain.mapping(entry.value, at: path) else { return (nil, false) }
            declaration = mapping
        }
        declaration.rejectUnknownKeys(allowed: PipelineShape.parameterDeclaration.keyNames)
        // `default:` with nothing after it is the empty text, so that a declared parameter always has a value.
        let defaultEntry = declaration.entries.first { $0.key == "default" }
        let defaultValue = defaultEntry.map { _ in declaration.read("default", { $0.string }) ?? "" }
        let isRequired = declaration.read("required", { $0.boolean }) ?? false
        _ = declaration.read("description", { $0.string })
        if isRequired, let defaultEntry {
            problems.error(
                path.appending("default"), at: defaultEntry.value.start,
                "a required parameter has no default; remove 'default:' or 'required: true'")
        } else if !isRequired, defaultEntry == nil {
            problems.error(path, at: entry.keyNode.start, "give it a 'default:' or 'required: true'")
        }
        return (isRequired ? nil : defaultValue, isRequired)
    }

    // MARK: Sections

    private func decodeRepository(_ document: MappingReader) -> RepositorySpec {
        var repository = RepositorySpec()
        guard let node = document.value("repository"),
            let mapping = document.reader.mapping(node, at: document.path.appending("repository"))
        else { return repository }
        mapping.rejectUnknownKeys(allowed: PipelineShape.repository.keyNames)
        repository.location = mapping.read("url", { $0.nonEmptyString })
        repository.locationIsInterpolated = mapping.value("url")?.scalar?.text.contains("${") ?? false
        repository.ref = mapping.read("ref", { $0.nonEmptyString }) ?? repository.ref
        if let node = mapping.value("workspace"),
            let workspace = mapping.reader.nonEmptyString(node, at: mapping.path.appending("workspace"))
        {
            let components = workspace.split(separator: "/")
            if workspace.hasPrefix("/") || components.contains("..") {
                problems.error(
                    mapping.path.appending("workspace"), at: node.start,
                    "'\(workspace)' must be a folder inside the repository: a relative path without '..'")
            } else {
                repository.workspacePath = workspace
            }
        }
        return repository
    }

    private func decodeHost(_ document: MappingReader) -> HostSelection {
        var selection = HostSelection()
        let path = document.path.appending("host")
        guard let node = document.value("host") else { return selection }
        // `host: mac-1` is short for `host: { name: mac-1 }`.
        if node.scalar != nil {
            if let name = document.reader.nonEmptyString(node, at: path) { selection.names = [name] }
            return selection
        }
        guard let mapping = document.reader.mapping(node, at: path, expected: "a host name or a mapping") else {
            return selection
        }
        mapping.rejectUnknownKeys(allowed: PipelineShape.host.keyNames)
        if let name = mapping.read("name", { $0.nonEmptyString }) { selection.names = [name] }
        if let names = mapping.read("names", { $0.strings }) {
            if let nameNode = mapping.value("name") {
                problems.error(
                    path.appending("name"), at: nameNode.start, "write either 'name:' or 'names:', not both")
            }
            selection.names = names.map(\.text)
        }
        selection.labels = mapping.read("labels", { $0.stringMap }) ?? [:]
        return selection
    }

    private func decodeSimulator(_ document: MappingReader) -> SimulatorCriteria {
        var criteria = SimulatorCriteria()
        guard let node = document.value("simulator"),
            let mapping = document.reader.mapping(node, at: document.path.appending("simulator"))
        else { return criteria }
        mapping.rejectUnknownKeys(allowed: PipelineShape.simulator.keyNames)
        if let node = mapping.value("platform"),
            let platform = mapping.reader.nonEmptyString(node, at: mapping.path.appending("platform"))
        {
            if Self.platforms.contains(platform) {
                criteria.platform = platform
            } else {
                problems.error(
                    mapping.path.appending("platform"), at: node.start,
                    "'\(platform)' is not one of \(SpecReader.list(Self.platforms))"
                        + SpecReader.suggestion(platform, Self.platforms))
            }
        }
        criteria.deviceName = mapping.read("device", { $0.nonEmptyString })
        if let node = mapping.value("runtime"),
            let runtime = mapping.reader.nonEmptyString(node, at: mapping.path.appending("runtime"))
        {
            if let problem = runtimeProblem(runtime, platform: criteria.platform) {
                problems.error(mapping.path.appending("runtime"), at: node.start, problem)
            } else {
                criteria.runtime = runtime
            }
        }
        criteria.udid = mapping.read("udid", { $0.nonEmptyString })
        criteria.create = mapping.read("create", { $0.boolean }) ?? false
        if criteria.create, criteria.deviceName == nil, let node = mapping.value("create") {
            problems.error(
                mapping.path.appending("create"), at: node.start,
                "'create: true' needs 'device' (a device type such as iPhone 15) to create a simulator from")
        }
        if criteria.udid != nil, let node = mapping.value("device") ?? mapping.value("runtime") {
            problems.warning(
                mapping.path.appending("udid"), at: node.start,
                "'udid' picks the simulator: 'device' and 'runtime' are ignored; remove them")
        }
        return criteria
    }

    /// `latest`, `17.5` or `iOS 17.5` (of the pipeline's platform); a `${…}` left for validation passes.
    private func runtimeProblem(_ runtime: String, platform: String) -> String? {
        if runtime == "latest" || runtime.contains("${") { return nil }
        let parts = runtime.split(separator: " ", omittingEmptySubsequences: true)
        let version = parts.last.map(String.init) ?? ""
        let versionIsValid =
            !version.isEmpty
            && version.split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
                !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber }
            }
        let expectation = "write 'latest', a version such as '17.5', or '\(platform) 17.5'"
        guard parts.count <= 2, versionIsValid else { return "'\(runtime)' is not a runtime; \(expectation)" }
        if parts.count == 2, parts[0] != platform {
            return "the runtime '\(runtime)' is not a \(platform) runtime (the simulator's platform); \(expectation)"
        }
        return nil
    }

    // MARK: Layers

    private func decodeLayers(_ document: MappingReader) -> [DecodedLayer] {
        let path = document.path.appending("layers")
        guard let node = document.required("layers", hint: "add 'layers:' with at least one layer"),
            let mapping = document.reader.mapping(node, at: path, expected: "a mapping of layer names to layers")
        else { return [] }
        if mapping.entries.isEmpty {
            problems.error(path, at: node.start, "a pipeline needs at least one layer")
        }
        var layers: [DecodedLayer] = []
        for entry in mapping.entries {
            if !Self.isValidLayerName(entry.key) {
                problems.error(
                    path.appending(entry.key), at: entry.keyNode.start,
                    "'\(entry.key)' cannot name a layer (it becomes a folder name): use lowercase letters, digits, "
                        + "'_' and '-', starting with a letter or digit")
            }
            if let layer = decodeLayer(entry, at: path.appending(entry.key), reader: mapping.reader) {
                layers.append(layer)
            }
        }
        return layers
    }

    static func isValidLayerName(_ name: String) -> Bool {
        func isLowerAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        guard let first = name.unicodeScalars.first, isLowerAlphanumeric(first) else { return false }
        return name.unicodeScalars.allSatisfy { isLowerAlphanumeric($0) || $0 == "_" || $0 == "-" }
    }

    private func decodeLayer(_ entry: MappingReader.Entry, at path: SpecKeyPath, reader: SpecReader) -> DecodedLayer? {
        guard let layer = reader.mapping(entry.value, at: path, expected: "a layer (a mapping with 'plugin:')") else {
            return nil
        }
        let kinds = registry.keys.sorted()
        var schema: PluginSchema?
        let kind = layer.required("plugin", hint: "name the plugin that runs it, one of \(SpecReader.list(kinds))")
            .flatMap { reader.nonEmptyString($0, at: path.appending("plugin")) }
        if let kind, let node = layer.value("plugin") {
            schema = registry[kind]
            if schema == nil {
                let suggestion = SpecReader.suggestion(kind, kinds)
                problems.error(
                    path.appending("plugin"), at: node.start,
                    "unknown plugin kind '\(kind)'"
                        + (suggestion.isEmpty ? "; known kinds: \(SpecReader.list(kinds))" : suggestion))
            }
        }
        let gate = layer.read("gate", { reader in { reader.choice($0, at: $1, among: Gate.allCases) } })
        let needs = layer.read("needs", { $0.strings }) ?? []
        let secrets = layer.read("secrets", { $0.strings }) ?? []
        let timeout = layer.read("timeout", { $0.duration })
        let logLimit = layer.read("log-limit", { $0.byteSize })
        let artifactLimit = layer.read("artifact-limit", { $0.byteSize })
        let clean = layer.read("clean", { $0.boolean })
        let buildCache = layer.read("build-cache", { $0.boolean })
        var settings: [String: SettingValue] = [:]
        var shellParameters: [String: String] = [:]
        if let schema {
            let settingSchemas = schema.settings.filter { !Self.layerKeys.contains($0.key) }
            layer.rejectUnknownKeys(allowed: Self.layerKeys + settingSchemas.map(\.key))
            for setting in settingSchemas {
                let hint = "\(setting.key) (\(setting.type.rawValue)): \(setting.summary)"
                guard let node = setting.required ? layer.required(setting.key, hint: hint) : layer.value(setting.key)
                else { continue }
                let value = decodeSetting(
                    node, setting: setting, at: path.appending(setting.key), reader: reader)
                if let value {
                    settings[setting.key] = value
                    SettingCheckReport.report(
                        setting.check?.problems(value) ?? [], in: node, at: path.appending(setting.key),
                        problems: problems)
                }
            }
            if settingSchemas.contains(where: \.isShellCommand), let interpolator = reader.interpolator {
                shellParameters = interpolator.takeShellEnvironment()
                for case (let name, let value?) in interpolator.parameters {
                    shellParameters[Interpolator.shellVariable(for: name)] = value
                }
            }
        }
        var spec = LayerSpec(
            name: entry.key, plugin: kind ?? "", gate: gate ?? schema?.defaultGate ?? .merge,
            needs: needs.map(\.text), timeoutSeconds: timeout, settings: settings,
            retry: decodeRetry(layer), secrets: secrets.map(\.text), shellParameters: shellParameters)
        if let logLimit { spec.logLimitBytes = logLimit }
        if let artifactLimit { spec.artifactLimitBytes = artifactLimit }
        spec.coverage = decodeCoverage(layer, plugin: kind)
        if let clean { spec.clean = clean }
        if let buildCache { spec.buildCache = buildCache }
        if clean == true, buildCache == false, let node = layer.value("clean") {
            problems.error(
                path.appending("clean"), at: node.start,
                "'clean: true' wipes the layer's build cache, and 'build-cache: false' builds without one: keep one "
                    + "of them (a layer without a build cache always builds from nothing)")
        }
        return DecodedLayer(spec: spec, needs: needs, secrets: secrets)
    }

    private func decodeSetting(
        _ node: YAMLNode, setting: SettingSchema, at path: SpecKeyPath, reader: SpecReader
    ) -> SettingValue? {
        let shell = setting.isShellCommand
        switch setting.type {
        case .string:
            let text =
                setting.required
                ? reader.nonEmptyString(node, at: path, shell: shell) : reader.string(node, at: path, shell: shell)
            return text.map(SettingValue.string)
        case .integer: return reader.integer(node, at: path).map(SettingValue.integer)
        case .boolean: return reader.boolean(node, at: path).map(SettingValue.boolean)
        case .strings:
            return reader.strings(node, at: path, shell: shell).map { SettingValue.strings($0.map(\.text)) }
        case .map: return reader.stringMap(node, at: path).map(SettingValue.map)
        case .record: return decodeRecord(node, fields: setting.fields, at: path, reader: reader)
        }
    }

    /// A `.record` setting: only its fields, each read as its kind and kept as canonical text.
    private func decodeRecord(
        _ node: YAMLNode, fields: [SettingField], at path: SpecKeyPath, reader: SpecReader
    ) -> SettingValue? {
        let names = fields.map(\.key)
        guard let mapping = reader.mapping(node, at: path, expected: "a mapping of \(SpecReader.list(names))")
        else { return nil }
        mapping.rejectUnknownKeys(allowed: names)
        var values: [String: String] = [:]
        for field in fields {
            switch field.kind {
            case .integer: values[field.key] = mapping.read(field.key, { $0.integer }).map { String($0) }
            case .boolean: values[field.key] = mapping.read(field.key, { $0.boolean }).map { String($0) }
            case .duration:
                values[field.key] = mapping.read(field.key, { $0.duration }).map { seconds in
                    seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
                }
            }
        }
        return .map(values)
    }

    /// Every `needs` entry names another layer, and no layer waits for itself through a cycle.
    private func checkNeeds(_ layers: [DecodedLayer]) {
        let names = layers.map(\.spec.name)
        let known = Set(names)
        var edges: [String: [(target: String, node: YAMLNode, path: SpecKeyPath)]] = [:]
        for layer in layers {
            for need in layer.needs {
                if need.text == layer.spec.name {
                    problems.error(need.path, at: need.node.start, "a layer cannot need itself; remove '\(need.text)'")
                } else if !known.contains(need.text) {
                    let others = names.filter { $0 != layer.spec.name }
                    let suggestion = SpecReader.suggestion(need.text, others)
                    problems.error(
                        need.path, at: need.node.start,
                        "no layer is named '\(need.text)'"
                            + (suggestion.isEmpty ? "; layers: \(SpecReader.list(others))" : suggestion))
                } else {
                    edges[layer.spec.name, default: []].append((need.text, need.node, need.path))
                }
            }
        }
        var finder = CycleFinder(edges: edges)
        for name in names { finder.visit(name) }
        for cycle in finder.cycles {
            problems.error(
                cycle.path, at: cycle.node.start,
                "'\(cycle.names.last ?? "")' closes a cycle: \(cycle.names.joined(separator: " → ")); remove one of "
                    + "these needs")
        }
    }
}

/// Depth-first search over `needs` that reports each cycle once, at the entry that closes it.
private struct CycleFinder {
    let edges: [String: [(target: String, node: YAMLNode, path: SpecKeyPath)]]
    private var finished: Set<String> = []
    private var stack: [String] = []
    private var onStack: Set<String> = []
    private(set) var cycles: [(names: [String], node: YAMLNode, path: SpecKeyPath)] = []

    init(edges: [String: [(target: String, node: YAMLNode, path: SpecKeyPath)]]) {
        self.edges = edges
    }

    mutating func visit(_ name: String) {
        guard !finished.contains(name), !onStack.contains(name) else { return }
        stack.append(name)
        onStack.insert(name)
        for edge in edges[name] ?? [] {
            if onStack.contains(edge.target), let start = stack.firstIndex(of: edge.target) {
                cycles.append((Array(stack[start...]) + [edge.target], edge.node, edge.path))
            } else {
                visit(edge.target)
            }
        }
        stack.removeLast()
        onStack.remove(name)
        finished.insert(name)
    }
}

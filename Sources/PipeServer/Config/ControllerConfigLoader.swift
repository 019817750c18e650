import Foundation
import PipeCore
import PipeSpec

/// Reads the controller's config file, reporting every problem at once with `file:line:column`, as pipeline files
/// are read.
///
/// Beyond the file's own shape it checks what it can know without running anything: cron expressions and time
/// zones, that each named pipeline exists in the project (`pipelines`), and, through `checkPipeline`, that the
/// pipeline loads with the parameters given (unknown parameter names, invalid values).
public struct ControllerConfigLoader {
    /// The top-level keys.
    public static let topLevelKeys = ControllerConfigShape.top.keyNames
    static let limitKeys = ControllerConfigShape.limits.keyNames
    static let scheduleKeys = ControllerConfigShape.schedule.keyNames
    static let watchKeys = ControllerConfigShape.watch.keyNames
    /// How often a watch polls when the file does not say.
    public static let defaultWatchInterval: Double = 60

    /// The pipelines of the project folder, by name; `nil` skips the check.
    public var pipelines: [String]?
    /// Loads a pipeline with parameters (and a ref); returns its problems as text, `nil` when it loads.
    public var checkPipeline: ((_ name: String, _ parameters: [String: String], _ ref: String?) -> String?)?

    /// Top-level sections other parts of Pipe read (the chat-ops endpoint's `chatops:`), by key: each decoder
    /// is given the document (to report problems with their positions), the section's value and its path, and
    /// keeps what it decodes itself.
    public var additionalSections: [String: (SpecDocument, YAMLNode, SpecKeyPath) -> Void] = [:]

    public init(
        pipelines: [String]? = nil,
        checkPipeline: ((_ name: String, _ parameters: [String: String], _ ref: String?) -> String?)? = nil
    ) {
        self.pipelines = pipelines
        self.checkPipeline = checkPipeline
    }

    /// Reads the file at `url`.
    public func load(_ url: URL) throws(SpecErrors) -> ControllerConfig {
        try decode(try SpecDocument.read(url))
    }

    /// Reads config text; `file` names it in messages.
    public func load(yaml: String, file: String) throws(SpecErrors) -> ControllerConfig {
        try decode(try SpecDocument(yaml: yaml, file: file))
    }

    private func decode(_ document: SpecDocument) throws(SpecErrors) -> ControllerConfig {
        var config = ControllerConfig(file: document.file)
        guard let root = document.root else {
            document.error(
                SpecKeyPath(), at: .start,
                "the file is empty; add 'schedules:' or 'watches:' (see docs/controller.md)")
            try document.finish()
            return config
        }
        guard let top = document.mapping(root, at: SpecKeyPath(), expected: "a mapping with 'schedules:'") else {
            try document.finish()
            return config
        }
        top.rejectUnknownKeys(allowed: Self.topLevelKeys + additionalSections.keys.sorted())
        for (key, decode) in additionalSections.sorted(by: { $0.key < $1.key }) {
            if let node = top.value(key) { decode(document, node, path(key)) }
        }
        if let node = top.value("grace-period"), let seconds = document.duration(node, at: path("grace-period")) {
            config.gracePeriodSeconds = seconds
        }
        if let node = top.value("session-idle"), let seconds = decodeSessionIdle(node, document) {
            config.sessionIdleSeconds = seconds
        }
        if let node = top.value("limits") { config.limits = decodeLimits(node, document) }
        if let node = top.value("store") { config.store = decodeStore(node, document) }
        if let node = top.value("schedules") {
            config.schedules = entries(node, at: path("schedules"), what: "schedule", document).compactMap {
                decodeSchedule($0.name, $0.mapping, document)
            }
        }
        if let node = top.value("watches") {
            config.watches = entries(node, at: path("watches"), what: "watch", document).compactMap {
                decodeWatch($0.name, $0.mapping, document)
            }
        }
        if config.schedules.isEmpty, config.watches.isEmpty, !document.hasErrors {
            document.warning(
                SpecKeyPath(), at: root.start,
                "no schedules and no watches: the controller runs only what `pipe enqueue` and chat commands queue")
        }
        try document.finish()
        return config
    }

    private func path(_ key: String) -> SpecKeyPath { SpecKeyPath([.key(key)]) }

    /// The named entries of `schedules:` or `watches:`, each a mapping.
    private func entries(_ node: YAMLNode, at path: SpecKeyPath, what: String, _ document: SpecDocument)
        -> [(name: String, mapping: SpecMapping)]
    {
        guard
            let mapping = document.mapping(
                node, at: path, expected: "a mapping of \(what) names to \(what)s (nightly: {pipeline: …})")
        else { return [] }
        return mapping.entries.compactMap { entry in
            let entryPath = path.appending(entry.key)
            guard Self.isValidName(entry.key) else {
                document.error(
                    entryPath, at: entry.keyNode.start,
                    "'\(entry.key)' cannot name a \(what): use letters, digits, '.', '_' and '-'")
                return nil
            }
            guard let body = document.mapping(entry.value, at: entryPath, expected: "a \(what) (a mapping)") else {
                return nil
            }
            return (entry.key, body)
        }
    }

    /// A path or a PostgreSQL URL without a password (a config file is read by others, and kept in git).
    private func decodeStore(_ node: YAMLNode, _ document: SpecDocument) -> String? {
        let keyPath = path("store")
        guard let text = document.nonEmptyString(node, at: keyPath) else { return nil }
        let isURL = text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
        if isURL, let password = URLComponents(string: text)?.password, !password.isEmpty {
            document.error(
                keyPath, at: node.start,
                "the PostgreSQL URL carries a password; remove it and put it in ~/.pgpass "
                    + "(hostname:port:database:username:password, mode 0600), a passfile=… named in the URL, or "
                    + "PGPASSWORD")
            return nil
        }
        return text
    }

    /// A duration, or 0 (which no other duration of the file may be): keep no session for the next run.
    private func decodeSessionIdle(_ node: YAMLNode, _ document: SpecDocument) -> Double? {
        let keyPath = path("session-idle")
        guard let text = document.nonEmptyString(node, at: keyPath) else { return nil }
        if let seconds = DurationParser.seconds(from: text) { return seconds }
        if ["0", "0s", "0m", "0h"].contains(text.trimmingCharacters(in: .whitespaces)) { return 0 }
        document.error(
            keyPath, at: node.start,
            "expected how long an idle SSH session is kept for the next run, such as 60s or 5m, or 0 to close each "
                + "one when its run ends; found '\(text)'")
        return nil
    }

    private func decodeLimits(_ node: YAMLNode, _ document: SpecDocument) -> ControllerLimits {
        var limits = ControllerLimits()
        let base = path("limits")
        guard let mapping = document.mapping(node, at: base) else { return limits }
        mapping.rejectUnknownKeys(allowed: Self.limitKeys)
        limits.runs = positive("runs", in: mapping, document)
        limits.perPipeline = positive("per-pipeline", in: mapping, document)
        if let pipelinesNode = mapping.value("pipelines"),
            let pipelines = document.mapping(pipelinesNode, at: base.appending("pipelines"))
        {
            for entry in pipelines.entries {
                let entryPath = base.appending("pipelines").appending(entry.key)
                checkPipelineName(entry.key, at: entry.keyNode, path: entryPath, document)
                if let value = document.integer(entry.value, at: entryPath) {
                    if value >= 1 {
                        limits.pipelines[entry.key] = value
                    } else {
                        document.error(entryPath, at: entry.value.start, "must be at least 1, found \(value)")
                    }
                }
            }
        }
        return limits
    }

    private func positive(_ key: String, in mapping: SpecMapping, _ document: SpecDocument) -> Int? {
        guard let node = mapping.value(key), let value = document.integer(node, at: mapping.path.appending(key)) else {
            return nil
        }
        guard value >= 1 else {
            document.error(mapping.path.appending(key), at: node.start, "must be at least 1, found \(value)")
            return nil
        }
        return value
    }

    private func decodeSchedule(_ name: String, _ mapping: SpecMapping, _ document: SpecDocument) -> ScheduleConfig? {
        mapping.rejectUnknownKeys(allowed: Self.scheduleKeys)
        let base = mapping.path
        let pipeline = pipelineName(in: mapping, document)
        var zone = TimeZone(identifier: "UTC") ?? TimeZone.current
        if let node = mapping.value("time-zone"),
            let text = document.nonEmptyString(node, at: base.appending("time-zone"))
        {
            if let named = TimeZone(identifier: text) {
                zone = named
            } else {
                let suggestion = SpecDocument.suggestion(text, among: TimeZone.knownTimeZoneIdentifiers)
                document.error(
                    base.appending("time-zone"), at: node.start,
                    "'\(text)' is not a time zone name\(suggestion.isEmpty ? "; use a name such as Europe/Paris, America/New_York or UTC" : suggestion)"
                )
            }
        }
        var timing: ScheduleTiming?
        if let node = mapping.required(
            "cron", hint: "five fields such as \"0 2 * * *\", @hourly, @daily, @weekly, or \"@every 30s\""),
            let text = document.nonEmptyString(node, at: base.appending("cron"))
        {
            do {
                timing = try ScheduleTiming.parse(text, timeZone: zone)
            } catch {
                document.error(base.appending("cron"), at: mark(of: error.offset, in: node), error.message)
            }
        }
        let ref = mapping.value("ref").flatMap { document.nonEmptyString($0, at: base.appending("ref")) }
        let parameters =
            mapping.value("parameters").flatMap { document.stringMap($0, at: base.appending("parameters")) } ?? [:]
        var missed = MissedRunPolicy.once
        if let node = mapping.value("missed"),
            let policy = document.choice(node, at: base.appending("missed"), among: MissedRunPolicy.allCases)
        {
            missed = policy
        }
        if let pipeline { checkLoads(pipeline, parameters, ref, mapping, document) }
        guard let pipeline, let timing else { return nil }
        return ScheduleConfig(
            name: name, pipeline: pipeline, ref: ref, parameters: parameters, timing: timing, missed: missed)
    }

    private func decodeWatch(_ name: String, _ mapping: SpecMapping, _ document: SpecDocument) -> WatchConfig? {
        mapping.rejectUnknownKeys(allowed: Self.watchKeys)
        let base = mapping.path
        let pipeline = pipelineName(in: mapping, document)
        var branches: [BranchPattern] = []
        if let node = mapping.required("branches", hint: "the branches to watch, such as [main, \"release/*\"]"),
            let values = document.strings(node, at: base.appending("branches"))
        {
            for value in values {
                var text = value.text.trimmingCharacters(in: .whitespaces)
                if text.hasPrefix("refs/heads/") { text = String(text.dropFirst("refs/heads/".count)) }
                if text.isEmpty || text.hasPrefix("/") || text.hasPrefix("refs/") || text.contains(" ") {
                    document.error(
                        value.path, at: value.node.start,
                        "'\(value.text)' is not a branch pattern; write a branch name such as main, release/* or "
                            + "feature/**")
                    continue
                }
                branches.append(BranchPattern(text))
            }
            if values.isEmpty {
                document.error(base.appending("branches"), at: node.start, "no branches; name at least one")
            }
        }
        var interval = Self.defaultWatchInterval
        if let node = mapping.value("interval"), let seconds = document.duration(node, at: base.appending("interval")) {
            interval = seconds
        }
        let parameters =
            mapping.value("parameters").flatMap { document.stringMap($0, at: base.appending("parameters")) } ?? [:]
        if let pipeline { checkLoads(pipeline, parameters, nil, mapping, document) }
        guard let pipeline, !branches.isEmpty else { return nil }
        return WatchConfig(
            name: name, pipeline: pipeline, branches: branches, intervalSeconds: interval, parameters: parameters)
    }

    private func pipelineName(in mapping: SpecMapping, _ document: SpecDocument) -> String? {
        guard let node = mapping.required("pipeline", hint: "the name of a pipeline in pipelines/"),
            let name = document.nonEmptyString(node, at: mapping.path.appending("pipeline"))
        else { return nil }
        return checkPipelineName(name, at: node, path: mapping.path.appending("pipeline"), document) ? name : nil
    }

    @discardableResult
    private func checkPipelineName(_ name: String, at node: YAMLNode, path: SpecKeyPath, _ document: SpecDocument)
        -> Bool
    {
        guard let pipelines, !pipelines.contains(name) else { return true }
        var message = "no pipeline '\(name)' in pipelines/"
        let suggestion = SpecDocument.suggestion(name, among: pipelines)
        message += suggestion.isEmpty ? " (pipelines: \(pipelines.joined(separator: ", ")))" : suggestion
        document.error(path, at: node.start, message)
        return false
    }

    private func checkLoads(
        _ pipeline: String, _ parameters: [String: String], _ ref: String?, _ mapping: SpecMapping,
        _ document: SpecDocument
    ) {
        guard let checkPipeline, let problem = checkPipeline(pipeline, parameters, ref) else { return }
        let node = mapping.value("parameters") ?? mapping.value("pipeline") ?? mapping.node
        let key = mapping.contains("parameters") ? "parameters" : "pipeline"
        document.error(
            mapping.path.appending(key), at: node.start,
            "pipeline '\(pipeline)' does not load with these settings: \(problem)")
    }

    /// Where a problem `offset` characters into a scalar's text is, when the scalar is on one line.
    private func mark(of offset: Int, in node: YAMLNode) -> SourceMark {
        guard let scalar = node.scalar, node.start.line == node.end.line, offset > 0 else { return node.start }
        let quote = scalar.style == .singleQuoted || scalar.style == .doubleQuoted ? 1 : 0
        return SourceMark(line: node.start.line, column: node.start.column + quote + offset)
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "._-".unicodeScalars.contains(scalar))
            }
    }
}

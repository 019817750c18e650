import PipeCore

/// A `checklist` layer's settings, read from its `LayerSpec`.
public struct ChecklistSettings: Sendable, Equatable {
    /// Where the checks are made.
    public enum Target: String, Codable, Sendable, Equatable, CaseIterable {
        /// On the simulator the run chose (the app may be installed and launched there first).
        case simulator
        /// On a physical device the tester holds (haptics, sensors): the run only names what to record.
        case device
    }

    /// What the tester does and looks at, in order.
    public var items: [String]
    /// Fields every sign-off must give (`os_version`, `app_build`, `device`, …).
    public var fields: [String]
    /// Fields a `fail` sign-off must also give (`steps`: the order of actions taken).
    public var fieldsOnFail: [String]
    /// An `.app` bundle, relative to the workspace (or absolute on the host), to install on the simulator.
    public var install: String?
    /// A bundle identifier to launch on the simulator after installing.
    public var launch: String?
    public var target: Target
    /// How long the simulator may take to boot before `install`/`launch` (`boot-timeout`, seconds).
    public var bootTimeoutSeconds: Int

    public init(
        items: [String], fields: [String] = [], fieldsOnFail: [String] = [], install: String? = nil,
        launch: String? = nil, target: Target = .simulator, bootTimeoutSeconds: Int = 120
    ) {
        self.items = items
        self.fields = fields
        self.fieldsOnFail = fieldsOnFail
        self.install = install
        self.launch = launch
        self.target = target
        self.bootTimeoutSeconds = bootTimeoutSeconds
    }

    /// The settings of `layer`; an empty `install` or `launch` (a parameter left at `""`) means none.
    public init(layer: LayerSpec) throws(ChecklistSettingsError) {
        let settings = layer.settings
        func nonEmpty(_ key: String) -> String? {
            guard let value = settings[key]?.stringValue?.trimmingCharacters(in: .whitespaces), !value.isEmpty
            else { return nil }
            return value
        }
        var target = Target.simulator
        if let text = nonEmpty("on") {
            guard let value = Target(rawValue: text) else {
                throw ChecklistSettingsError(
                    layer: layer.name,
                    "`on: \(text)` is neither `simulator` nor `device`; say where the checks are made")
            }
            target = value
        }
        self.init(
            items: settings["items"]?.stringsValue ?? [], fields: settings["fields"]?.stringsValue ?? [],
            fieldsOnFail: settings["fields-on-fail"]?.stringsValue ?? [], install: nonEmpty("install"),
            launch: nonEmpty("launch"), target: target)
        if let value = settings["boot-timeout"] {
            guard case .integer(let seconds) = value, seconds > 0 else {
                throw ChecklistSettingsError(
                    layer: layer.name, "`boot-timeout` must be a positive number of seconds, e.g. `boot-timeout: 120`")
            }
            bootTimeoutSeconds = seconds
        }
        if items.isEmpty {
            throw ChecklistSettingsError(layer: layer.name, "`items` is empty; list what the tester checks")
        }
        if target == .device && (install != nil || launch != nil) {
            throw ChecklistSettingsError(
                layer: layer.name,
                "`install` and `launch` work on the chosen simulator, not with `on: device`; remove them or the `on`")
        }
        let overlap = Set(fields).intersection(fieldsOnFail)
        if !overlap.isEmpty {
            throw ChecklistSettingsError(
                layer: layer.name,
                "\(overlap.sorted().joined(separator: ", ")) is in both `fields` and `fields-on-fail`; keep it in one")
        }
    }

    /// What a sign-off of this checklist must give.
    public var requirements: SignoffRequirements {
        SignoffRequirements(fields: fields, fieldsOnFail: fieldsOnFail)
    }
}

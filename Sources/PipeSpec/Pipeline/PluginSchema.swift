import PipeCore

/// What the loader must know about one plugin kind to check a layer: its settings and its default gate.
///
/// The loader gets these as a registry (`kind → PluginSchema`) instead of depending on plugin modules; build it
/// from the plugin types with `PluginSchema.registry(_:)`.
public struct PluginSchema: Sendable, Equatable {
    public var settings: [SettingSchema]
    /// The gate of a layer that does not name one.
    public var defaultGate: Gate
    /// Whether its layers can take secrets of `type: file`.
    public var takesFileSecrets: Bool

    public init(settings: [SettingSchema], defaultGate: Gate = .merge, takesFileSecrets: Bool = false) {
        self.settings = settings
        self.defaultGate = defaultGate
        self.takesFileSecrets = takesFileSecrets
    }

    /// The schema a plugin type declares.
    public init(_ plugin: any LayerPlugin.Type) {
        self.init(
            settings: plugin.settings, defaultGate: plugin.defaultGate, takesFileSecrets: plugin.takesFileSecrets)
    }

    /// `kind → schema` for the given plugin types.
    public static func registry(_ plugins: [any LayerPlugin.Type]) -> [String: PluginSchema] {
        var registry: [String: PluginSchema] = [:]
        for plugin in plugins { registry[plugin.kind] = PluginSchema(plugin) }
        return registry
    }
}

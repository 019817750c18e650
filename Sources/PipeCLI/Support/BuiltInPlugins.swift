import ChecklistPlugin
import PipeCore
import PipeSpec
import ShellPlugin
import XcodebuildTestPlugin

/// The plugins compiled into `pipe`, by kind.
enum BuiltInPlugins {
    static let all: [LayerPlugin.Type] = [XcodebuildTestPlugin.self, ChecklistPlugin.self, ShellPlugin.self]

    static var registry: PluginRegistry { PluginRegistry(all) }

    /// What the pipeline loader checks each layer's settings against.
    static var schemas: [String: PluginSchema] { PluginSchema.registry(all) }
}

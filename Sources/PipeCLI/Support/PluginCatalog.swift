import ExternalPlugin
import Foundation
import PipeCore
import PipeSpec

/// The layer kinds a project can use: the built-in plugins, and the external plugins (`pipe-layer-<kind>`) found
/// in the project's `Plugins/` folder or on `PATH`, each described by its `--describe` answer.
struct PluginCatalog {
    var projectDirectory: URL
    /// `PATH`, for finding external plugins.
    var path: String?

    init(projectDirectory: URL, environment: [String: String]) {
        self.projectDirectory = projectDirectory
        self.path = environment["PATH"]
    }

    /// What a pipeline file's layers are checked against: the built-ins, and the external plugins the file names
    /// (only those are asked for `--describe`). A plugin that cannot describe itself is left out, with a warning
    /// that says why, so the loader's "unknown plugin kind" comes with its cause.
    func schemas(forPipelineAt file: URL?, warn: (String) -> Void) -> [String: PluginSchema] {
        let text = file.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
        return schemas(of: { mentions(text, kind: $0) }, warn: warn)
    }

    /// The built-ins and every external plugin found, each asked for `--describe` (`pipe schema pipeline
    /// --with-plugins`).
    func allSchemas(warn: (String) -> Void) -> [String: PluginSchema] { schemas(of: { _ in true }, warn: warn) }

    private func schemas(of wanted: (String) -> Bool, warn: (String) -> Void) -> [String: PluginSchema] {
        var schemas = BuiltInPlugins.schemas
        for (kind, executable) in externalPlugins() where schemas[kind] == nil && wanted(kind) {
            do {
                let description = try ExternalPluginDiscovery.describeOnce(executable, kind: kind)
                schemas[kind] = PluginSchema(settings: description.settings, defaultGate: description.defaultGate)
            } catch {
                warn("warning: external plugin '\(kind)' left out: \(error.description)\n")
            }
        }
        return schemas
    }

    /// External plugins found, kind → executable; built-in kinds are never taken by an external plugin.
    func externalPlugins() -> [String: URL] {
        ExternalPluginDiscovery.all(projectDirectory: projectDirectory, path: path).filter {
            BuiltInPlugins.registry.plugin(kind: $0.key) == nil
        }
    }

    /// The external kinds a loaded pipeline uses (the engine must register `ExternalLayerPlugin` under each).
    func externalKinds(in pipeline: Pipeline) -> [String] {
        let builtIn = BuiltInPlugins.registry
        return Array(Set(pipeline.layers.map(\.plugin).filter { builtIn.plugin(kind: $0) == nil })).sorted()
    }

    /// Whether the file names `kind` as a plugin (`plugin: kind`, also in a flow mapping), looked for in the text so
    /// no YAML is parsed twice.
    private func mentions(_ text: String, kind: String) -> Bool {
        let pattern = #"plugin:\s*["']?"# + NSRegularExpression.escapedPattern(for: kind) + #"["']?\s*($|#|,|\})"#
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
            return false
        }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

import Foundation
import PipeCore
import PipeSpec

extension ProjectFolder {
    /// Loads one of this project's pipeline files for a run: checked against the plugins it names (built-in, and
    /// external `pipe-layer-<kind>` executables of the project or `PATH`), with `parameters` over its defaults.
    /// `pipe run`, `pipe rerun`, `pipe enqueue`, the controller and the chat-ops backends all load through here.
    func loadPipeline(
        _ file: URL, parameters: [String: String], environment: [String: String], warn: (String) -> Void = { _ in }
    ) throws(SpecErrors) -> Pipeline {
        let catalog = PluginCatalog(projectDirectory: url, environment: environment)
        return try PipelineLoader(registry: catalog.schemas(forPipelineAt: file, warn: warn)).load(
            path: file, parameters: parameters, environment: environment)
    }
}

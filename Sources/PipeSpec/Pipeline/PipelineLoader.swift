import Foundation
import PipeCore

/// Loads a pipeline file (`pipelines/<name>.yml`) into a validated `Pipeline`, reporting every problem at once.
///
/// ```swift
/// let loader = PipelineLoader(registry: PluginSchema.registry([XcodebuildTestPlugin.self]))
/// let pipeline = try loader.load(path: url, parameters: ["ref": "main"])          // pipe run
/// let check = loader.validate(path: url)                                          // pipe validate
/// ```
///
/// The format is described in `docs/pipeline-format.md`.
public struct PipelineLoader: Sendable {
    /// Plugin kind → what its layers accept.
    public var registry: [String: PluginSchema]

    public init(registry: [String: PluginSchema]) {
        self.registry = registry
    }

    /// Loads the file for a run: every required parameter must have a value.
    ///
    /// - Parameters:
    ///   - parameters: the run's `--param k=v` values; they override the file's defaults, and each must be
    ///     declared in the file.
    ///   - environment: what `${NAME}` falls back to when no parameter is declared with that name.
    /// - Throws: `SpecErrors` with every error found (warnings are dropped: use `check` to see them).
    public func load(
        path: URL, parameters: [String: String] = [:],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SpecErrors) -> Pipeline {
        try Self.pipeline(
            from: check(path: path, parameters: parameters, environment: environment, requirement: .enforce))
    }

    /// Loads pipeline text for a run; `file` names it in messages and gives the pipeline its name.
    public func load(
        yaml: String, file: String, parameters: [String: String] = [:], environment: [String: String] = [:]
    ) throws(SpecErrors) -> Pipeline {
        try Self.pipeline(
            from: check(yaml: yaml, file: file, parameters: parameters, environment: environment, requirement: .enforce)
        )
    }

    /// Checks a file for `pipe validate`: a required parameter without a value is a warning, not an error.
    public func validate(
        path: URL, parameters: [String: String] = [:],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> PipelineCheck {
        check(path: path, parameters: parameters, environment: environment, requirement: .warn)
    }

    /// Checks pipeline text for `pipe validate`.
    public func validate(
        yaml: String, file: String, parameters: [String: String] = [:], environment: [String: String] = [:]
    ) -> PipelineCheck {
        check(yaml: yaml, file: file, parameters: parameters, environment: environment, requirement: .warn)
    }

    /// Checks a file, returning the pipeline (when valid) with every error and warning.
    public func check(
        path: URL, parameters: [String: String], environment: [String: String], requirement: ParameterRequirement
    ) -> PipelineCheck {
        let file: SpecFile
        do {
            file = try SpecFile.read(path)
        } catch {
            return PipelineCheck(pipeline: nil, problems: error.problems)
        }
        return check(file, parameters: parameters, environment: environment, requirement: requirement)
    }

    /// Checks pipeline text, returning the pipeline (when valid) with every error and warning.
    public func check(
        yaml: String, file: String, parameters: [String: String], environment: [String: String],
        requirement: ParameterRequirement
    ) -> PipelineCheck {
        check(
            SpecFile(displayPath: file, text: yaml), parameters: parameters, environment: environment,
            requirement: requirement)
    }

    private func check(
        _ file: SpecFile, parameters: [String: String], environment: [String: String],
        requirement: ParameterRequirement
    ) -> PipelineCheck {
        let root: YAMLNode?
        do {
            root = try file.parse()
        } catch {
            return PipelineCheck(pipeline: nil, problems: error.problems)
        }
        let problems = ProblemCollector(file: file.displayPath, source: file.source)
        let decoder = PipelineDecoder(
            name: Self.pipelineName(for: file.displayPath), file: file.displayPath, registry: registry,
            parameters: parameters, environment: environment, requirement: requirement, problems: problems)
        let pipeline = decoder.decode(root)
        return PipelineCheck(pipeline: pipeline, problems: problems.problems)
    }

    /// `pipelines/app-intents.yml` → `app-intents`.
    static func pipelineName(for file: String) -> String {
        let base = URL(fileURLWithPath: file).lastPathComponent
        for suffix in [".yml", ".yaml"] where base.hasSuffix(suffix) {
            return String(base.dropLast(suffix.count))
        }
        return base
    }

    private static func pipeline(from check: PipelineCheck) throws(SpecErrors) -> Pipeline {
        guard let pipeline = check.pipeline, check.isValid else { throw SpecErrors(check.errors) }
        return pipeline
    }
}

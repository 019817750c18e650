import PipeCore

/// The outcome of checking a pipeline file: the pipeline when it is valid, and every problem found.
public struct PipelineCheck: Sendable {
    /// Present when there is no error (warnings allowed).
    public var pipeline: Pipeline?
    /// Errors and warnings, sorted by position.
    public var problems: [SpecProblem]

    public init(pipeline: Pipeline?, problems: [SpecProblem]) {
        self.pipeline = pipeline
        self.problems = SpecErrors.sorted(problems)
    }

    public var errors: [SpecProblem] { problems.filter { $0.severity == .error } }
    public var warnings: [SpecProblem] { problems.filter { $0.severity == .warning } }
    public var isValid: Bool { errors.isEmpty }
}

/// What to do with a required parameter that has no value.
public enum ParameterRequirement: Sendable {
    /// `pipe run`: an error telling to pass `--param name=value`.
    case enforce
    /// `pipe validate`: a warning; `${name}` stays in the text and typed values using it are not checked.
    case warn
}

import PipeCore

/// One watch of the controller's config: the pipeline's repository polled for new head commits on the branches
/// that match; each new head runs the pipeline at that exact commit, once.
public struct WatchConfig: Sendable, Equatable {
    /// The watch's name (its key under `watches:`); the store remembers its last seen heads by this name.
    public var name: String
    public var pipeline: String
    public var branches: [BranchPattern]
    public var intervalSeconds: Double
    public var parameters: [String: String]

    public init(
        name: String, pipeline: String, branches: [BranchPattern], intervalSeconds: Double = 60,
        parameters: [String: String] = [:]
    ) {
        self.name = name
        self.pipeline = pipeline
        self.branches = branches
        self.intervalSeconds = intervalSeconds
        self.parameters = parameters
    }

    /// Whether a branch name (without `refs/heads/`) is watched.
    public func watches(branch: String) -> Bool { branches.contains { $0.matches(branch) } }
}

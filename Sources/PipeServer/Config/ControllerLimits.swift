/// How many runs the controller starts at once. Host capacity (the hosts file's `capacity`, through the run
/// store's host leases) bounds them too, whatever these say.
public struct ControllerLimits: Sendable, Equatable {
    /// Runs at once overall; `nil`: as many as the hosts take.
    public var runs: Int?
    /// Runs at once of any one pipeline, unless `pipelines` names it; `nil`: no limit per pipeline.
    public var perPipeline: Int?
    /// Runs at once of the pipelines named here.
    public var pipelines: [String: Int]

    public init(runs: Int? = nil, perPipeline: Int? = nil, pipelines: [String: Int] = [:]) {
        self.runs = runs
        self.perPipeline = perPipeline
        self.pipelines = pipelines
    }

    /// The limit of one pipeline, if any.
    public func limit(forPipeline name: String) -> Int? { pipelines[name] ?? perPipeline }
}

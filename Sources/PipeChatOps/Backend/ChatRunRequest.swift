/// A run asked for from the chat.
public struct ChatRunRequest: Sendable, Equatable {
    /// A pipeline name (`pipelines/<name>.yml`); never a path.
    public var pipeline: String
    /// The ref to verify, when given (`ref=main`); else the pipeline's.
    public var ref: String?
    /// `key=value` parameters, in the order typed; the pipeline says which exist.
    public var parameters: [KeyValuePair]
    /// Who asked, for the run record: `alice (U012ABCDEF)`.
    public var requestedBy: String
    /// Why, for the run record: `chat: /pipe run app-intents ref=main (channel C0123, team T0456)`.
    public var reason: String
    public var userID: String
    public var channelID: String

    public init(
        pipeline: String, ref: String?, parameters: [KeyValuePair], requestedBy: String, reason: String,
        userID: String, channelID: String
    ) {
        self.pipeline = pipeline
        self.ref = ref
        self.parameters = parameters
        self.requestedBy = requestedBy
        self.reason = reason
        self.userID = userID
        self.channelID = channelID
    }
}

/// A run that was queued.
public struct ChatQueuedRun: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    /// The ref it will check out (as asked, or the pipeline's).
    public var ref: String

    public init(runID: String, pipeline: String, ref: String) {
        self.runID = runID
        self.pipeline = pipeline
        self.ref = ref
    }
}

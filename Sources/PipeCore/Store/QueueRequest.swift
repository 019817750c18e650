import PipeBasics

/// What a trigger asks the controller to run: a pipeline of the project folder, by name, with a ref and
/// parameters, and who asked and why.
///
/// The request is checked by whoever enqueues it (`pipe enqueue` loads the pipeline with the parameters first); the
/// controller loads the pipeline again when it starts the run, since the file may change while the run waits.
public struct QueueRequest: Sendable, Equatable, Codable {
    /// The pipeline's name in `pipelines/` (`app-intents`).
    public var pipeline: String
    /// The git ref to verify instead of the pipeline's (a branch, a tag, a commit SHA); `nil` keeps the pipeline's.
    public var ref: String?
    /// Pipeline parameters, overriding their defaults.
    public var parameters: [String: String]
    public var source: QueueSource
    /// Who asked: a login name, a chat user (`slack:U024BE7LH (alice)`), `schedule nightly`.
    public var requestedBy: String
    /// Why, for the run record: the chat command, the schedule's slot, the new commit.
    public var reason: String?
    /// At most one queued run ever per key (`watch:app-intents:<sha>`, `schedule:nightly:<slot>`): the queue
    /// refuses a second request with the same key, across processes and restarts.
    public var triggerKey: String?
    /// The forge event behind a `forge` request: the commit, pull request and repository to report to.
    public var forge: ForgeTrigger?
    /// The run this one runs again (a re-run asked for on the forge, `pipe rerun`).
    public var rerunOf: String?

    public init(
        pipeline: String, ref: String? = nil, parameters: [String: String] = [:], source: QueueSource,
        requestedBy: String, reason: String? = nil, triggerKey: String? = nil, forge: ForgeTrigger? = nil,
        rerunOf: String? = nil
    ) {
        self.pipeline = pipeline
        self.ref = ref
        self.parameters = parameters
        self.source = source
        self.requestedBy = requestedBy
        self.reason = reason
        self.triggerKey = triggerKey
        self.forge = forge
        self.rerunOf = rerunOf
    }
}

extension QueueRequest {
    /// The trigger key of a pipeline's run at one commit with its parameters, shared by watches and forges' events:
    /// a commit that a watch and a webhook both see, or that a pull request and its branch both point at, runs once.
    public static func commitKey(pipeline: String, sha: String, parameters: [String: String]) -> String {
        let key = "commit:\(pipeline):\(sha.lowercased())"
        guard !parameters.isEmpty else { return key }
        // Each name and value with its length first, so no value can read as another parameter.
        let text = parameters.sorted { $0.key < $1.key }.map {
            "\($0.key.utf8.count):\($0.key)\($0.value.utf8.count):\($0.value)"
        }.joined()
        return key + ":" + SHA256Digest.hex(of: Array(text.utf8)).prefix(16)
    }
}

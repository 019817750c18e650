import Foundation

/// One update for a forge in the outbox: a commit status, a check run, a pull request's comment. The store keeps
/// its payload as the JSON the forge client wrote; it only orders, claims and retries.
public struct ForgeUpdate: Sendable, Equatable {
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Waiting to be sent, or to be tried again at `nextAttemptAt`.
        case pending
        /// Taken by a sender (`claimedBy`) until `claimedUntil`.
        case sending
        /// The forge accepted it.
        case sent
        /// A newer update of the same target was written before it was sent.
        case superseded
        /// Given up (a refusal that no retry can change): `lastError` says why.
        case failed
    }

    /// What to write: a draft becomes an update with a sequence number.
    public struct Draft: Sendable, Equatable {
        public var forge: String
        /// What the update sets, of which only the newest state matters (`status <repo> <sha> <context>`).
        public var target: String
        /// `status`, `check-run`, `comment`.
        public var kind: String
        /// The request's content, as JSON.
        public var payload: String
        /// The run it reports on, if any.
        public var runID: String?
        public var createdAt: Date

        public init(forge: String, target: String, kind: String, payload: String, runID: String?, createdAt: Date) {
            self.forge = forge
            self.target = target
            self.kind = kind
            self.payload = payload
            self.runID = runID
            self.createdAt = createdAt
        }
    }

    public var sequence: Int64
    public var draft: Draft
    public var state: State
    /// Sends tried so far.
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var claimedBy: String?
    public var claimedUntil: Date?
    public var sentAt: Date?

    public init(
        sequence: Int64, draft: Draft, state: State, attempts: Int, nextAttemptAt: Date, lastError: String? = nil,
        claimedBy: String? = nil, claimedUntil: Date? = nil, sentAt: Date? = nil
    ) {
        self.sequence = sequence
        self.draft = draft
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.claimedBy = claimedBy
        self.claimedUntil = claimedUntil
        self.sentAt = sentAt
    }
}

/// How sending a claimed update ended.
public enum ForgeUpdateResult: Sendable, Equatable {
    case sent
    /// Not now (a rate limit, a 5xx, no connection): try again at `at`.
    case retry(at: Date, error: String)
    /// Never: the forge refused it for good.
    case failed(String)
}

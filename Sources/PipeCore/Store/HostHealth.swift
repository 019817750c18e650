import Foundation

/// What the run store knows of a host's health: its latest check and how it has gone lately.
public struct HostHealth: Sendable, Equatable {
    public var host: String
    /// The most recent check.
    public var latest: HostHealthRecord
    /// When a check last found the host usable.
    public var lastUsableAt: Date?
    /// Failed checks since the last one that passed (0 when the latest passed).
    public var consecutiveFailures: Int

    public init(host: String, latest: HostHealthRecord, lastUsableAt: Date?, consecutiveFailures: Int) {
        self.host = host
        self.latest = latest
        self.lastUsableAt = lastUsableAt
        self.consecutiveFailures = consecutiveFailures
    }

    /// A host whose latest check failed is out of rotation until a check passes again.
    public var isInRotation: Bool { latest.usable }
}

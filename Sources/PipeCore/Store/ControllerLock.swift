import Foundation

/// The one controller that drives a run store's queue: held in the store, so a second `pipe controller` on the
/// same store refuses to start instead of running the same work twice.
public struct ControllerLock: Sendable, Equatable {
    public var owner: RunOwner
    public var acquiredAt: Date
    /// The config file it was started with, for messages.
    public var configPath: String?

    public init(owner: RunOwner, acquiredAt: Date, configPath: String?) {
        self.owner = owner
        self.acquiredAt = acquiredAt
        self.configPath = configPath
    }
}

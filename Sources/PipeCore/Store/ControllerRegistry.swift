import Foundation

/// The controllers serving a store that admits several (`RunQueue.admitsSeveralControllers`): each renews a
/// heartbeat in the store, timed by the store's own clock, so an owner on another machine can be judged alive or
/// dead by its heartbeat rather than by a pid this machine cannot see.
public protocol ControllerRegistry: AnyObject {
    /// Records `owner` as serving the store, or renews its heartbeat, at the store's time.
    func heartbeat(owner: RunOwner, configPath: String?) throws

    /// Takes `owner` off the list (it stopped, or its death has been settled).
    func leave(owner: RunOwner) throws

    /// Every controller on the list, with the age of its heartbeat by the store's clock, oldest start first.
    func controllers() throws -> [ControllerMember]
}

/// One controller on a store's list.
public struct ControllerMember: Sendable, Equatable {
    public var owner: RunOwner
    public var configPath: String?
    public var startedAt: Date
    public var heartbeatAt: Date
    /// Seconds since the last heartbeat, by the store's clock (the machines' clocks play no part).
    public var heartbeatAge: Double

    public init(owner: RunOwner, configPath: String?, startedAt: Date, heartbeatAt: Date, heartbeatAge: Double) {
        self.owner = owner
        self.configPath = configPath
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
        self.heartbeatAge = heartbeatAge
    }
}

extension [ControllerMember] {
    /// An owner's liveness as this machine sees it, and for an owner on another machine by its heartbeat: alive
    /// while the heartbeat is younger than `timeout`, dead after; unknown when it is no controller on the list.
    public func liveness(of owner: RunOwner, heartbeatTimeout timeout: Double) -> RunOwner.Liveness {
        let local = owner.liveness()
        guard local == .unknown else { return local }
        guard let member = first(where: { $0.owner.hostname == owner.hostname && $0.owner.pid == owner.pid }) else {
            return .unknown
        }
        return member.heartbeatAge < timeout ? .alive : .dead
    }
}

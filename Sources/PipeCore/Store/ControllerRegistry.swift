import Foundation

/// The processes holding runs in a store that admits several controllers (`RunQueue.admitsSeveralControllers`):
/// the controllers, and each `pipe run` of its own. Each renews a heartbeat in the store, timed by the store's own
/// clock, so an owner on another machine can be judged alive or dead by its heartbeat rather than by a pid this
/// machine cannot see.
public protocol ControllerRegistry: AnyObject {
    /// Records `owner` on the list in `role`, or renews its heartbeat, at the store's time.
    func heartbeat(owner: RunOwner, configPath: String?, role: ControllerMember.Role) throws

    /// Takes `owner` off the list (it stopped, or its death has been settled).
    func leave(owner: RunOwner) throws

    /// Every process on the list (controllers and `pipe run`s), with the age of its heartbeat by the store's
    /// clock, oldest start first.
    func controllers() throws -> [ControllerMember]
}

extension ControllerRegistry {
    /// Records a controller, or renews its heartbeat.
    public func heartbeat(owner: RunOwner, configPath: String?) throws {
        try heartbeat(owner: owner, configPath: configPath, role: .controller)
    }
}

/// One process on a store's list.
public struct ControllerMember: Sendable, Equatable {
    /// What the process is: only controllers serve the queue; a `pipe run` holds its own run.
    public enum Role: String, Sendable {
        case controller
        case run
    }

    public var owner: RunOwner
    public var role: Role
    public var configPath: String?
    public var startedAt: Date
    public var heartbeatAt: Date
    /// Seconds since the last heartbeat, by the store's clock (the machines' clocks play no part).
    public var heartbeatAge: Double

    public init(
        owner: RunOwner, role: Role = .controller, configPath: String?, startedAt: Date, heartbeatAt: Date,
        heartbeatAge: Double
    ) {
        self.owner = owner
        self.role = role
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

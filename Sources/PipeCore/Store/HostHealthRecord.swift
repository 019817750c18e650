import Foundation

/// The result of one health check of a host, as `pipe hosts check` (or the engine, after a failed connection)
/// records it.
public struct HostHealthRecord: Sendable, Equatable, Codable {
    public var host: String
    public var checkedAt: Date
    /// Whether the host could take a run: reachable, key trusted, login accepted, Xcode and simulators found,
    /// enough free disk.
    public var usable: Bool
    /// Why it is not usable (`unreachable: …`, `disk: …`); `nil` when usable.
    public var problem: String?
    /// The median round trip of a trivial command, when the host was reached.
    public var latencySeconds: Double?
    /// Who checked: `pipe hosts check`, `run 20261129-140312-7f3a`.
    public var source: String

    public init(
        host: String, checkedAt: Date, usable: Bool, problem: String? = nil, latencySeconds: Double? = nil,
        source: String
    ) {
        self.host = host
        self.checkedAt = checkedAt
        self.usable = usable
        self.problem = problem
        self.latencySeconds = latencySeconds
        self.source = source
    }
}

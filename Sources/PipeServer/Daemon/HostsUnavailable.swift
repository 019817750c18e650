/// The hosts file cannot be read now (missing, invalid): queued runs wait for it to be fixed instead of failing,
/// since the problem is the coordinator's, not the request's.
public struct HostsUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Why a request was not accepted as the chat's own.
public struct VerificationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400 for a request that is malformed, 401 for one that does not prove who sent it.
    public var status: Int
    /// What the sender is told (never a secret, never what the right value would have been).
    public var message: String
    /// A short fixed label the audit log counts refusals by (`bad signature`, `replay`…).
    public var kind: String

    public init(status: Int, kind: String, _ message: String) {
        self.status = status
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

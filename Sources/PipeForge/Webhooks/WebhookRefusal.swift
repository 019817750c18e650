/// Why a delivery was refused, for the audit log and the HTTP answer. The message never holds a secret or the
/// signature Pipe expected.
public struct WebhookRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The signature or token is missing or does not match: 401.
        case unauthenticated
        /// Verified (or not yet verifiable) but unreadable: a header or the payload breaks the forge's format or
        /// Pipe's bounds: 400.
        case malformed
        /// The body is larger than the endpoint takes: 413.
        case tooLarge
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The HTTP status to answer with.
    public var httpStatus: Int {
        switch kind {
        case .unauthenticated: 401
        case .malformed: 400
        case .tooLarge: 413
        }
    }

    public var description: String { message }
}

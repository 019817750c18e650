/// The request itself is wrong (unknown ref, unknown host name, no hosts file, missing workspace folder):
/// `pipe run` exits 2 and tells what to change.
public struct RequestError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A problem a person fixes (a bad users file, a config that cannot serve), said with what to do next.
public struct WebError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

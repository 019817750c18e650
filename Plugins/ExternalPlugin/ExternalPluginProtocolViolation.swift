/// Something a plugin wrote that the protocol does not allow: the layer ends `plugin-error` with this as evidence.
public struct ExternalPluginProtocolViolation: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

import PipeCore

/// A `checklist` layer's settings do not make sense together (checked when the layer runs or is signed).
public struct ChecklistSettingsError: Error, CustomStringConvertible, Sendable, Equatable {
    public var layer: String
    public var message: String

    public init(layer: String, _ message: String) {
        self.layer = layer
        self.message = message
    }

    public var description: String { "layer \(layer): \(message)" }
}

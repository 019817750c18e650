import Foundation
import PipeBasics

/// One entry of a run's event log: what was shown, as a type and a JSON payload.
public struct StoredEvent: Sendable, Equatable {
    /// Orders events across the store; a follower asks for those after the last one it showed.
    public var sequence: Int64
    public var runID: String
    public var layer: String?
    /// e.g. `layer-started`, `test-finished`, `output`.
    public var type: String
    /// A JSON document (object, array or scalar) describing the event.
    public var payload: String
    public var at: Date

    public init(sequence: Int64, runID: String, layer: String?, type: String, payload: String, at: Date) {
        self.sequence = sequence
        self.runID = runID
        self.layer = layer
        self.type = type
        self.payload = payload
        self.at = at
    }

    /// An event to append.
    public struct Draft: Sendable, Equatable {
        public var type: String
        public var layer: String?
        /// Must be valid JSON; the store refuses anything else.
        public var payload: String
        public var at: Date

        public init(type: String, layer: String? = nil, payload: String = "{}", at: Date = Date()) {
            self.type = type
            self.layer = layer
            self.payload = payload
            self.at = at
        }

        /// An event whose payload is `value` encoded as JSON (sorted keys).
        public init<Payload: Encodable>(type: String, layer: String? = nil, encoding value: Payload, at: Date = Date())
            throws
        {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            self.init(
                type: type, layer: layer, payload: String(decoding: try encoder.encode(value), as: UTF8.self), at: at)
        }
    }
}

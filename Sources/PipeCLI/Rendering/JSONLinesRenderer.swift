import Foundation
import PipeBasics
import PipeCore
import PipeReport

/// Shows a run as JSON lines (`--json`): one object per event, for scripts and CI tools.
///
/// Each line is `{"event":"<kind>","time":"<UTC ISO 8601>",<the event's fields>}`: the kind is
/// `RunEvent.typeName` (`layer-started`, `test-finished`, …) and the fields are `RunEvent.jsonPayload`, the same
/// ones the run store keeps. `time` is left out when the renderer has no clock (`pipe report`, whose output must be
/// the same for the same input). Every line passes through the `SecretRedactor`.
public final class JSONLinesRenderer: EventSink {
    /// The keys this renderer adds to every event's fields; no event payload may use them.
    public static let reservedKeys = ["event", "time"]

    private let clock: (() -> Date)?
    private let redactor: SecretRedactor
    private let write: (String) -> Void

    public init(clock: (() -> Date)? = { Date() }, redactor: SecretRedactor = .none, write: @escaping (String) -> Void)
    {
        self.clock = clock
        self.redactor = redactor
        self.write = write
    }

    public func emit(_ event: RunEvent) {
        write(redactor.redactJSON(Self.line(for: event, time: clock.map { UTCTimestamp.iso8601($0()) })) + "\n")
    }

    /// The line for one event, without its newline.
    static func line(for event: RunEvent, time: String?) -> String {
        var head = "{\"event\":\"\(event.typeName)\""
        if let time { head += ",\"time\":\"\(time)\"" }
        let payload = event.jsonPayload
        // The payload is one JSON object: splice its members in after ours.
        let members = payload.dropFirst().drop { $0 == " " || $0 == "\n" }
        return members.hasPrefix("}") ? head + "}" : head + "," + members
    }
}

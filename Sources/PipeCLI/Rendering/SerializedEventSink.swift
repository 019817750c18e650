import Foundation
import PipeCore

/// Passes events on one at a time, for a renderer fed from more than the run's journal (which serializes its own):
/// a controller run's connector notes the sessions it reuses from whichever thread opens a connection.
final class SerializedEventSink: EventSink, @unchecked Sendable {
    private let sink: EventSink
    private let lock = NSLock()

    init(_ sink: EventSink) { self.sink = sink }

    func emit(_ event: RunEvent) {
        lock.lock()
        defer { lock.unlock() }
        sink.emit(event)
    }
}

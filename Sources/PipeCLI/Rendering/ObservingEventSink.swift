import PipeCore

/// Passes every event on, and shows each to `observe` first: the controller learns when a run's commit is known.
final class ObservingEventSink: EventSink {
    private let sink: EventSink
    private let observe: (RunEvent) -> Void

    init(_ sink: EventSink, observe: @escaping (RunEvent) -> Void) {
        self.sink = sink
        self.observe = observe
    }

    func emit(_ event: RunEvent) {
        observe(event)
        sink.emit(event)
    }
}

import Foundation
import PipeCore
import PipeHTTP

extension WebEndpoint {
    /// How often a stream asks the store for news, and how often it shows the client it is alive.
    static let pollSeconds = 0.25
    static let heartbeatSeconds = 15.0

    /// Server-sent events of the runs list: the rows again whenever they changed.
    func runsEvents(_ filter: WebRunsFilter, viewer: WebViewer) -> HTTPResponse {
        streamed { [self] stream in
            var sent = ""
            var quiet = 0.0
            while stream.isOpen {
                if let rows = try? rows(filter) {
                    let html = RunsPage.rowsHTML(rows, viewer: viewer)
                    if html != sent {
                        guard stream.write(Self.event("rows", ["html": html])) else { return }
                        sent = html
                        quiet = 0
                    }
                }
                quiet += 1
                if quiet >= Self.heartbeatSeconds, !stream.write(": alive\n\n") { return }
                if quiet >= Self.heartbeatSeconds { quiet = 0 }
                guard stream.pause(seconds: 1) else { return }
            }
        }
    }

    /// Server-sent events of a run's output after `after`, as `pipe runs logs --follow` reads it, until the run ends.
    func logEvents(_ run: StoredRun, layer: String?, after: Int64) -> HTTPResponse {
        let runID = run.record.runID
        return streamed { [self] stream in
            var last = after
            var quiet = 0.0
            while stream.isOpen {
                // The status is read before the events: whatever the run wrote before it ended is in this read.
                let status = (try? store.run(runID))?.record.status ?? .interrupted
                var batch: [StoredEvent]
                repeat {
                    batch = (try? store.events(runID: runID, after: last, layer: layer, limit: 500)) ?? []
                    let text = batch.map(Self.outputText).joined()
                    last = batch.last?.sequence ?? last
                    if !text.isEmpty {
                        guard stream.write(Self.event("output", ["text": text], id: last)) else { return }
                        quiet = 0
                    }
                } while batch.count == 500
                guard status == .running || status == .queued else {
                    stream.write(Self.event("end", ["status": status.rawValue]))
                    return
                }
                quiet += Self.pollSeconds
                if quiet >= Self.heartbeatSeconds {
                    guard stream.write(": alive\n\n") else { return }
                    quiet = 0
                }
                guard stream.pause(seconds: Self.pollSeconds) else { return }
            }
        }
    }

    func streamed(_ produce: @escaping @Sendable (HTTPResponseStream) -> Void) -> HTTPResponse {
        var headers = WebPage.pageHeaders
        try? headers.set("X-Accel-Buffering", "no")
        return .streamed(200, contentType: "text/event-stream; charset=utf-8", headers: headers) { stream in
            stream.write("retry: 3000\n\n")
            produce(stream)
            stream.finish()
        }
    }

    /// One server-sent event whose data is a JSON object on one line.
    static func event(_ name: String, _ data: [String: String], id: Int64? = nil) -> String {
        let json =
            (try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return (id.map { "id: \($0)\n" } ?? "") + "event: \(name)\ndata: \(json)\n\n"
    }
}

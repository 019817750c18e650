import Foundation
import PipeCore
import PipeHTTP

extension WebEndpoint {
    /// How often a stream asks the store for news, and how often it shows the client it is alive.
    static let pollSeconds = 0.25
    static let heartbeatSeconds = 15.0

    /// Server-sent events of the runs list: the rows again whenever they changed. Followers of one filter share
    /// one feed, which reads the store at most once a second for all of them.
    func runsEvents(_ filter: WebRunsFilter, viewer: WebViewer) -> HTTPResponse {
        guard let feed = runsFeeds.follow(filter) else {
            return WebPage.message(
                503, title: "Too many live lists",
                "\(runsFeeds.capacity) different filters are followed live already; reload the page to see new runs",
                viewer: viewer, json: true)
        }
        return streamed { [self] stream in
            defer { runsFeeds.unfollow(feed) }
            var sent = 0
            var lastWrite = Date()
            while stream.isOpen {
                let latest = runsFeeds.rows(feed, after: sent, waitSeconds: runsFeeds.periodSeconds) {
                    try rows(filter)
                }
                if latest.version > sent, let rows = latest.rows {
                    guard stream.write(Self.event("rows", ["html": RunsPage.rowsHTML(rows, viewer: viewer)])) else {
                        return
                    }
                    sent = latest.version
                    lastWrite = Date()
                } else if Date().timeIntervalSince(lastWrite) >= Self.heartbeatSeconds {
                    guard stream.write(": alive\n\n") else { return }
                    lastWrite = Date()
                }
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

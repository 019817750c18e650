import Dispatch
import Foundation

/// For the `serve` commands: blocks until SIGINT or SIGTERM arrives, so the caller can stop its server in order.
enum StopSignals {
    /// - Parameter hangUp: called on SIGHUP, one at a time (a reload); `nil`: SIGHUP keeps its default (it stops).
    static func wait(hangUp: (@Sendable () -> Void)? = nil) {
        let stop = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        if let hangUp {
            signal(SIGHUP, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "pipe.hang-up"))
            source.setEventHandler(handler: hangUp)
            source.resume()
            sources.append(source)
        }
        stop.wait()
        for source in sources { source.cancel() }
    }
}

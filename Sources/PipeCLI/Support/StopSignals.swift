import Dispatch
import Foundation

/// For the `serve` commands: blocks until SIGINT or SIGTERM arrives, so the caller can stop its server in order.
enum StopSignals {
    static func wait() {
        let stop = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        stop.wait()
        for source in sources { source.cancel() }
    }
}

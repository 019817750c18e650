import Dispatch
import Foundation
import PipeCore

/// Turns SIGINT and SIGTERM into a cancellation of the run in progress.
///
/// The first signal cancels (the engine kills the remote process groups, keeps artifacts, and exits 130); a second
/// one while cleaning up is taken as "stop now" and exits at once with 130.
public final class SignalCancellation {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "pipe.signals")
    private var received = 0

    public init(token: CancellationToken, onFirstSignal: @escaping (Int32) -> Void = { _ in }) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.received += 1
                if self.received > 1 { exit(PipeExitCode.cancelled.rawValue) }
                token.cancel(reason: signalNumber == SIGINT ? "cancelled by Ctrl-C (SIGINT)" : "cancelled by SIGTERM")
                onFirstSignal(signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

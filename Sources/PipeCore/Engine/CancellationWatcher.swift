import Foundation

/// Turns a cancellation asked for by another process (`pipe runs cancel`, recorded in the run store) into a
/// cancellation of this run, as if the user had pressed Ctrl-C here.
final class CancellationWatcher: @unchecked Sendable {
    private let stopped = CancellationToken()
    private let thread: Thread?

    init(journal: RunJournal, token: CancellationToken, interval: TimeInterval = 0.5) {
        guard journal.hasStore else {
            thread = nil
            return
        }
        let stopped = self.stopped
        let thread = Thread {
            while !stopped.isCancelled && !token.isCancelled {
                if let reason = journal.cancellationRequested() {
                    token.cancel(reason: reason)
                    return
                }
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.name = "pipe.cancellation-watcher"
        thread.start()
        self.thread = thread
    }

    func stop() { stopped.cancel(reason: "run ended") }
}

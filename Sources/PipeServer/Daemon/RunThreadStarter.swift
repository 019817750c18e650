import Foundation

/// Starts the controller's run threads from a thread of its own, at a lower CPU priority than the scheduling loop.
///
/// Measured with 50 emulated hosts on 2 cores: starting a thread from the loop took 2.5–4.9 ms of the loop's wall
/// clock per run (the new thread, still at the loop's priority until it lowered its own, took the core first), about
/// half of a scheduling pass. Handing the start to this thread takes microseconds, and a thread created here is born
/// at this thread's `nice` (Linux keeps `nice` per thread and a new thread inherits its creator's), so a run never
/// competes with the loop at the loop's priority.
final class RunThreadStarter: @unchecked Sendable {
    /// One thread to start: its name and body.
    private struct Start {
        var name: String
        var body: @Sendable () -> Void
    }

    /// How much higher than the loop's the run threads' `nice` value is (0 keeps them equal).
    let niceness: Int32
    private let condition = NSCondition()
    private var pending: [Start] = []
    private var started = false

    init(niceness: Int32) {
        self.niceness = niceness
    }

    /// Queues a run thread; it starts within microseconds on an idle coordinator.
    func start(name: String, _ body: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.append(Start(name: name, body: body))
        if !started {
            started = true
            let starter = Thread { [self] in loop() }
            starter.name = "pipe.controller.starter"
            starter.start()
        }
        condition.signal()
        condition.unlock()
    }

    /// Runs for the life of the process: nothing to stop, and it sleeps while nothing is queued.
    private func loop() {
        Self.lowerCallingThreadPriority(by: niceness)
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            let starts = pending
            pending = []
            condition.unlock()
            for start in starts {
                let thread = Thread(block: start.body)
                thread.name = start.name
                // The engine runs on this thread as `pipe run` does on its main thread: give it a main thread's stack.
                thread.stackSize = 8 << 20
                thread.start()
            }
        }
    }

    /// Adds `increment` to the calling thread's `nice` value (Linux keeps it per thread, and `who` 0 is the calling
    /// thread; a no-op elsewhere).
    private static func lowerCallingThreadPriority(by increment: Int32) {
        #if os(Linux)
            guard increment > 0 else { return }
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let current = getpriority(which, 0)
            guard errno == 0 else { return }
            _ = setpriority(which, 0, min(current + increment, 19))
        #endif
    }
}

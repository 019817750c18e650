import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Handles SIGTERM, SIGINT and SIGHUP in the `pipe-mac-emulator` process the way xcodebuild does: stop the child
/// (`swift`, the test binary), print `** BUILD INTERRUPTED **` or `** TEST INTERRUPTED **` for the phase that
/// was running, and exit with 128 + the signal number.
///
/// Only the real binary installs it (`Emulator.main`); in-process callers of `Emulator.run` get no signal handling.
final class InterruptMonitor: @unchecked Sendable {
    private let lock = NSLock()
    private let stdout: EmulatorOutput
    private var banner: String?
    private var child: pid_t?
    private var interrupted = false
    private var sources: [DispatchSourceSignal] = []

    private init(stdout: EmulatorOutput) {
        self.stdout = stdout
    }

    /// Installs the handlers; the returned monitor must live as long as the process.
    static func install(stdout: EmulatorOutput) -> InterruptMonitor {
        let monitor = InterruptMonitor(stdout: stdout)
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { monitor.handle(signalNumber) }
            source.resume()
            monitor.sources.append(source)
        }
        return monitor
    }

    /// The banner to print if interrupted now; nil before the build starts and after the final banner.
    func setPhase(banner: String?) {
        lock.lock()
        self.banner = banner
        lock.unlock()
    }

    /// The child to stop when interrupted (nil when it has ended).
    func track(child: pid_t?) {
        lock.lock()
        self.child = child
        lock.unlock()
    }

    /// Whether a signal arrived: then the handler owns the rest of the process's life and the caller must
    /// print nothing more.
    var isInterrupted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return interrupted
    }

    /// Blocks the calling thread for good: the signal handler is stopping the process.
    func parkForever() -> Never {
        while true { pause() }
    }

    /// The crash fault: the child and the emulator die by SIGKILL at once, leaving no banner, like a crashed Mac tool.
    func crashNow() -> Never {
        lock.lock()
        let child = self.child
        lock.unlock()
        if let child { kill(child, SIGKILL) }
        kill(getpid(), SIGKILL)
        parkForever()
    }

    private func handle(_ signalNumber: Int32) {
        lock.lock()
        if interrupted {
            lock.unlock()
            return
        }
        interrupted = true
        let banner = self.banner
        let child = self.child
        lock.unlock()

        if let child {
            // SIGINT lets SwiftPM cancel its own subprocesses; SIGKILL if the child does not end soon.
            kill(child, SIGINT)
            kill(child, SIGTERM)
            let deadline = Date().addingTimeInterval(3)
            while Date() < deadline, !Self.hasEnded(child) { usleep(20_000) }
            if !Self.hasEnded(child) { kill(child, SIGKILL) }
        }
        if let banner { stdout.write("\n\(banner)\n\n") }
        _exit(128 + signalNumber)
    }

    private static func hasEnded(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid || (result < 0 && errno == ECHILD)
    }
}

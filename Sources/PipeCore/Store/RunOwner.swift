import Foundation
import PipeBasics

/// The process that drives a run: host name, pid and the process's start time, so a pid reused by another
/// process after a crash is not mistaken for the owner.
public struct RunOwner: Sendable, Equatable, Codable {
    public var hostname: String
    public var pid: Int32
    /// An opaque token for the process's start (on Linux the boot id and the start time in clock ticks from
    /// `/proc/<pid>/stat`); `nil` where the platform does not tell.
    public var processStart: String?

    public init(hostname: String, pid: Int32, processStart: String?) {
        self.hostname = hostname
        self.pid = pid
        self.processStart = processStart
    }

    /// Whether an owner is still running, as far as this machine can tell.
    public enum Liveness: Sendable, Equatable {
        case alive
        case dead
        /// The owner runs on another machine: only that machine can tell.
        case unknown
    }

    /// This process.
    public static func current() -> RunOwner {
        let pid = getpid()
        return RunOwner(hostname: localHostname(), pid: pid, processStart: processStartToken(of: pid))
    }

    /// The process with this pid on this machine, as an owner, or `nil` when there is none (or it has exited).
    public static func process(_ pid: Int32) -> RunOwner? {
        guard processExists(pid) else { return nil }
        return RunOwner(hostname: localHostname(), pid: pid, processStart: processStartToken(of: pid))
    }

    /// Whether this owner still runs: `.unknown` for another host; `.dead` when no process has its pid, when
    /// that process is a zombie, or when it started at another time (the pid was reused).
    public func liveness() -> Liveness {
        guard hostname == RunOwner.localHostname() else { return .unknown }
        guard RunOwner.processExists(pid) else { return .dead }
        guard let recorded = processStart else { return .alive }
        guard let now = RunOwner.processStartToken(of: pid) else {
            // Gone (or turned zombie) between the two looks.
            return RunOwner.processExists(pid) ? .alive : .dead
        }
        return now == recorded ? .alive : .dead
    }

    /// `pid 4242 on ci-1`, for messages.
    public var description: String { "pid \(pid) on \(hostname)" }

    /// The machine's name, or `PIPE_MACHINE_NAME` when set: machines that share a host name (containers), and tests
    /// that give each controller on one machine an identity of its own, name themselves apart.
    static func localHostname() -> String {
        if let named = getenv("PIPE_MACHINE_NAME").map({ String(cString: $0) }), !named.isEmpty { return named }
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(cString: buffer)
    }

    static func processExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        if kill(pid, 0) != 0 && errno != EPERM { return false }
        #if os(Linux)
            // A zombie has exited: it only waits for its parent to read its status.
            if let state = procStat(pid)?.state, state == "Z" || state == "X" { return false }
        #endif
        return true
    }

    static func processStartToken(of pid: Int32) -> String? {
        #if os(Linux)
            guard let stat = procStat(pid), stat.state != "Z", stat.state != "X" else { return nil }
            let boot = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return "\(boot ?? "boot"):\(stat.startTicks)"
        #else
            return nil
        #endif
    }

    #if os(Linux)
        /// Fields of `/proc/<pid>/stat`: the state (field 3) and the start time in clock ticks (field 22). The
        /// command name (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
        private static func procStat(_ pid: Int32) -> (state: String, startTicks: String)? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 19 else { return nil }
            return (String(fields[0]), String(fields[19]))
        }
    #endif
}

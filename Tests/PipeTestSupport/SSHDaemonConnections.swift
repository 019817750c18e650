import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The open connections of a test's sshd, seen from the host's side: the listener (whose pid is in `pidFile`)
/// forks a privileged monitor for each connection, and the monitor a session process; both hold the socket.
public struct SSHDaemonConnections {
    public let pidFile: URL

    public init(pidFile: URL) { self.pidFile = pidFile }

    /// How many connections are open now (zombies, which have already exited, left out).
    public func count() throws -> Int {
        let listener = try self.listener()
        return try processes().filter { $0.parent == listener && !$0.state.hasPrefix("Z") }.count
    }

    /// Kills the processes serving the open connections, as a network drop would; with `alsoTheListener`, the
    /// listener too, as if the host went away. Returns how many connections there were.
    ///
    /// Each monitor leads its own process group (sshd calls `setsid` for every connection), and the session
    /// process it forks after authentication joins that group. So the whole group is killed at once: killing the
    /// processes listed by `ps` missed a session process forked just after the listing, which then kept the
    /// connection half alive (a channel opened, its command never started).
    @discardableResult
    public func drop(alsoTheListener: Bool = false) throws -> Int {
        let listener = try self.listener()
        let monitors = try processes().filter { $0.parent == listener }.compactMap { Int32($0.pid) }
        if alsoTheListener, let listenerPID = Int32(listener) { kill(listenerPID, SIGKILL) }
        for monitor in monitors {
            kill(-monitor, SIGKILL)
            kill(monitor, SIGKILL)
        }
        return monitors.count
    }

    private func listener() throws -> String {
        try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func processes() throws -> [(pid: String, parent: String, state: String)] {
        try CommandRunner.run(URL(fileURLWithPath: "/bin/ps"), ["-eo", "pid=,ppid=,stat="]).stdout
            .split(separator: "\n").compactMap { line in
                let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
                return fields.count == 3 ? (fields[0], fields[1], fields[2]) : nil
            }
    }
}

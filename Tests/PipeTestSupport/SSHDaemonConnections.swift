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
    @discardableResult
    public func drop(alsoTheListener: Bool = false) throws -> Int {
        let listener = try self.listener()
        let table = try processes()
        let monitors = table.filter { $0.parent == listener }.map(\.pid)
        let pids =
            (alsoTheListener ? [listener] : []) + monitors + table.filter { monitors.contains($0.parent) }.map(\.pid)
        for pid in pids { kill(Int32(pid) ?? 0, SIGKILL) }
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

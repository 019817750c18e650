import Foundation

extension SSHSession {
    /// Why this session, idle since its last command, must not serve another run; `nil` when it may.
    ///
    /// Decided without a round trip to the host, so taking a warm session costs microseconds: the session was
    /// neither lost nor closed, no channel is left open on it (a command whose channel the host never closed may
    /// still run), the socket holds nothing unread (on a session nobody uses, anything the host sends — a
    /// disconnect, the end of the connection — means it is going away), and the host key is, by the known_hosts
    /// file as it reads now, still the one `connect` accepted: a key removed or replaced since is obeyed at once.
    /// A refused session is to be dropped; a fresh `connect` then says what is wrong, if anything.
    public func reuseRefusal(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let lostReason { return "the connection was lost (\(lostReason))" }
        if isDisconnected { return "the session was closed" }
        if openChannels > 0 { return "a command's channel is still open on it" }
        if socket.hasPendingInput { return "the host sent something while the session was idle (it may be closing it)" }
        let path = Self.expandingHome(host.knownHostsFile, environment: environment)
        guard let knownHosts = try? KnownHostsFile.load(path: path) else {
            return "the known_hosts file \(path) cannot be read now"
        }
        let verdict = knownHosts.verdict(for: hostKey, address: host.address, port: host.port)
        if HostKeyRefusal.error(for: verdict, key: hostKey, host: host, file: knownHosts) != nil {
            return "\(path) no longer trusts its host key (\(hostKey.fingerprint))"
        }
        return nil
    }
}

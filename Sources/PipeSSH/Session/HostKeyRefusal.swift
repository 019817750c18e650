import PipeBasics
import PipeCore

/// The refusals of a host key, worded like OpenSSH's so people recognise them, with what to do next.
enum HostKeyRefusal {
    /// The error for a verdict other than `.trusted`; `nil` for `.trusted`.
    static func error(
        for verdict: HostKeyVerdict, key: SSHHostKey, host: HostConfig, file: KnownHostsFile
    ) -> RemoteError? {
        let name = SSHHostKey.knownHostsName(address: host.address, port: host.port)
        let nothingSent =
            "Pipe refused the connection before logging in: no authentication was attempted and nothing was run."
        let keyscan =
            "ssh-keyscan" + (host.port == 22 ? "" : " -p \(host.port)") + " -t \(key.keyscanType) "
            + ShellQuote.quote(host.address)
        switch verdict {
        case .trusted:
            return nil
        case .unknown(let otherKeyTypes, let portMismatchLines):
            var lines = [
                "The authenticity of host '\(name)' can't be established.",
                "\(key.displayType) key fingerprint is \(key.fingerprint).",
                file.exists
                    ? "This key is not known for '\(name)' in \(file.path)."
                    : "The known_hosts file \(file.path) does not exist.",
            ]
            if !otherKeyTypes.isEmpty {
                lines.append("Keys of other types are recorded for it: \(otherKeyTypes.joined(separator: ", ")).")
            }
            if !portMismatchLines.isEmpty {
                let locations = portMismatchLines.map { "\(file.path):\($0)" }.joined(separator: ", ")
                lines.append(
                    "\(locations) records this key for '\(host.address)', which means port 22 only; "
                        + "an entry for port \(host.port) is written '\(name)'.")
            }
            lines.append(nothingSent)
            lines.append(
                "If this fingerprint is the host's (compare it with `ssh-keygen -lf /etc/ssh/ssh_host_\(key.keyscanType)_key.pub` "
                    + "run on the host), trust it with `pipe hosts trust \(host.name)`, or append the output of "
                    + "`\(keyscan)` to \(file.path).")
            return RemoteError(.hostKeyUnknown, host: host.name, lines.joined(separator: "\n"))
        case .changed(let line, let recordedFingerprint):
            let lines = [
                "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
                "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @",
                "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
                "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!",
                "Someone could be eavesdropping on you right now (man-in-the-middle attack)!",
                "It is also possible that the host key has just been changed.",
                "The fingerprint for the \(key.displayType) key sent by '\(name)' is \(key.fingerprint);",
                "\(file.path):\(line) records a different \(key.displayType) key (\(recordedFingerprint)).",
                nothingSent,
                "If the host's administrator confirms the new key, remove the old one with "
                    + "`ssh-keygen -f \(ShellQuote.quote(file.path)) -R \(ShellQuote.quote(name))` "
                    + "and trust the new one with `pipe hosts trust \(host.name)`.",
            ]
            return RemoteError(.hostKeyChanged, host: host.name, lines.joined(separator: "\n"))
        case .revoked(let line):
            let text = [
                "The \(key.displayType) key sent by '\(name)' (\(key.fingerprint)) is marked @revoked in "
                    + "\(file.path):\(line).",
                nothingSent,
                "A revoked key must not be trusted again; ask the host's administrator for the host's new key.",
            ]
            return RemoteError(.hostKeyChanged, host: host.name, text.joined(separator: "\n"))
        }
    }
}

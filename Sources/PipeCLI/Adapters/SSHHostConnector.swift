import Foundation
import PipeCore
import PipeSSH

/// The engine's `HostConnector` over libssh2: host key checked against known_hosts before logging in. Every
/// connection is new and closes when its run lets go of it (`pipe run`); the controller keeps them warm instead
/// (`WarmSessionPool`).
struct SSHHostConnector: HostConnector {
    var environment: [String: String]

    func connect(_ host: HostConfig, cancellation: CancellationToken) throws -> ConnectedHost {
        let session = try SSHSession.connect(to: host, environment: environment)
        return Self.connected(session, remote: remoteHost(over: session))
    }

    /// The `RemoteHost` runs use over `session`: workspace syncs remember what they sent across processes.
    func remoteHost(over session: SSHSession) -> SSHRemoteHost {
        let remote = SSHRemoteHost(session: session)
        remote.syncStateDirectory = SSHRemoteHost.defaultSyncStateDirectory(environment: environment)
        // With `transfer-sessions: 2`, a big result bundle comes back over two sessions at once; the second logs in
        // the same way, its key checked again.
        let (host, environment) = (session.host, environment)
        if host.transferSessions > 1 {
            remote.secondSessionForDownloads = { try SSHSession.connect(to: host, environment: environment) }
        }
        return remote
    }

    static func connected(_ session: SSHSession, remote: RemoteHost) -> ConnectedHost {
        ConnectedHost(remote: remote, keyType: session.hostKey.displayType, fingerprint: session.hostKeyFingerprint)
    }
}

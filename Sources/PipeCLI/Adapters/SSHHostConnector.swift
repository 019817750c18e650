import Foundation
import PipeCore
import PipeSSH

/// The engine's `HostConnector` over libssh2: host key checked against known_hosts before logging in.
struct SSHHostConnector: HostConnector {
    var environment: [String: String]

    func connect(_ host: HostConfig, cancellation: CancellationToken) throws -> ConnectedHost {
        let session = try SSHSession.connect(to: host, environment: environment)
        let remote = SSHRemoteHost(session: session)
        remote.syncStateDirectory = SSHRemoteHost.defaultSyncStateDirectory(environment: environment)
        return ConnectedHost(
            remote: remote, keyType: session.hostKey.displayType,
            fingerprint: session.hostKeyFingerprint)
    }
}

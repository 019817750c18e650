import CSSH2
import Foundation
import PipeCore

extension SSHSession {
    /// Logs in with the identity file and/or the ssh-agent named in the host's configuration (blocking mode, bounded
    /// by `connectTimeoutSeconds`). Never puts key material or passphrases into messages.
    func authenticate(environment: [String: String]) throws {
        libssh2_session_set_timeout(raw, max(1, Int(host.connectTimeoutSeconds * 1000)))
        let user = host.user
        let offered = user.withCString { libssh2_userauth_list(raw, $0, UInt32(strlen($0))) }
        if offered == nil && libssh2_userauth_authenticated(raw) != 0 { return }
        guard let offered else {
            throw failure(Int(libssh2_session_last_errno(raw)), while: "asking which login methods are accepted")
        }
        let accepted = String(cString: offered)
        guard accepted.split(separator: ",").contains("publickey") else {
            throw RemoteError(
                .authentication, host: host.name,
                "cannot log in as \(user) on \(host.endpoint): the host accepts only \(accepted), and Pipe logs in "
                    + "with keys only; enable PubkeyAuthentication in the host's sshd_config")
        }

        var attempts = [String]()
        var rsaKeyPath: String?
        if let configured = host.identityFile {
            let path = Self.expandingHome(configured, environment: environment)
            let keyType = PrivateKeyFile.keyType(atPath: path)
            if keyType == "ssh-rsa" { rsaKeyPath = path }
            let described = "public key \(path)" + (keyType.map { " (\($0))" } ?? "")
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw RemoteError(
                    .authentication, host: host.name,
                    "the identity file \(path) does not exist or cannot be read; check `identityFile` in the hosts file"
                )
            }
            let passphrase = try identityPassphrase(environment: environment)
            // An empty passphrase rather than NULL: OpenSSL would otherwise prompt on the terminal for an encrypted key.
            let status = user.withCString { name in
                libssh2_userauth_publickey_fromfile_ex(raw, name, UInt32(strlen(name)), nil, path, passphrase ?? "")
            }
            if status == 0 { return }
            switch status {
            case LIBSSH2_ERROR_FILE:
                attempts.append(
                    "\(described): libssh2 could not load it (wrong or missing passphrase, or a key format it cannot "
                        + "read)")
            case LIBSSH2_ERROR_AUTHENTICATION_FAILED, LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED:
                attempts.append("\(described): refused by the host")
            default:
                if let lost = connectionFailure(status, while: "logging in") { throw lost }
                attempts.append("\(described): \(Self.lastErrorText(raw))")
            }
        }
        if host.useAgent {
            attempts.append(try authenticateWithAgent(user: user, environment: environment) ?? "")
            if libssh2_userauth_authenticated(raw) != 0 { return }
        }
        if host.identityFile == nil && !host.useAgent {
            attempts.append("nothing: the host has neither `identityFile` nor `useAgent: true` in the hosts file")
        }

        var message =
            "cannot log in as \(user) on \(host.endpoint). Tried: \(attempts.filter { !$0.isEmpty }.joined(separator: "; ")). "
            + "The host accepts: \(accepted)."
        if let rsaKeyPath {
            message +=
                " \(rsaKeyPath) is an RSA key: libssh2 1.10 signs RSA keys only with ssh-rsa (SHA-1), which OpenSSH 8.8 "
                + "and later refuse by default. Use an ed25519 key instead (`ssh-keygen -t ed25519 -f <file>`) and add "
                + "its .pub line to the host's authorized_keys."
        } else {
            message += " Check that the public key is in ~\(user)/.ssh/authorized_keys on the host."
        }
        throw RemoteError(.authentication, host: host.name, message)
    }

    /// The passphrase for the identity file, from the environment variable or the file the host's configuration
    /// names; `nil` when it names neither.
    private func identityPassphrase(environment: [String: String]) throws -> String? {
        if let variable = host.identityPassphraseEnvironment {
            guard let value = environment[variable] else {
                throw RemoteError(
                    .authentication, host: host.name,
                    "the environment variable \(variable) (identityPassphraseEnvironment) is not set; set it to the "
                        + "identity file's passphrase")
            }
            return value
        }
        if let file = host.identityPassphraseFile {
            let path = Self.expandingHome(file, environment: environment)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw RemoteError(
                    .authentication, host: host.name,
                    "the passphrase file \(path) (identityPassphraseFile) does not exist or cannot be read")
            }
            var text = String(decoding: data, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            return text
        }
        return nil
    }

    /// Tries every key of the ssh-agent; returns a description of what was tried when none was accepted.
    private func authenticateWithAgent(user: String, environment: [String: String]) throws -> String? {
        guard let socketPath = environment["SSH_AUTH_SOCK"], !socketPath.isEmpty else {
            return "ssh-agent: SSH_AUTH_SOCK is not set"
        }
        guard let agent = libssh2_agent_init(raw) else { return "ssh-agent: libssh2 could not set up an agent client" }
        defer {
            _ = libssh2_agent_disconnect(agent)
            libssh2_agent_free(agent)
        }
        libssh2_agent_set_identity_path(agent, socketPath)
        guard libssh2_agent_connect(agent) == 0 else { return "ssh-agent at \(socketPath): cannot connect to it" }
        guard libssh2_agent_list_identities(agent) == 0 else {
            return "ssh-agent at \(socketPath): cannot list its keys"
        }
        var identity: UnsafeMutablePointer<libssh2_agent_publickey>?
        var previous: UnsafeMutablePointer<libssh2_agent_publickey>?
        var count = 0
        while libssh2_agent_get_identity(agent, &identity, previous) == 0, let current = identity {
            count += 1
            let status = libssh2_agent_userauth(agent, user, current)
            if status == 0 { return nil }
            if let lost = connectionFailure(status, while: "logging in with the ssh-agent") { throw lost }
            previous = current
        }
        return count == 0
            ? "ssh-agent at \(socketPath): it holds no keys (add one with ssh-add)"
            : "ssh-agent at \(socketPath): all \(count) of its keys refused by the host"
    }

    /// The error when `status` means the connection itself failed (or the login timed out), else `nil`.
    private func connectionFailure(_ status: Int32, while action: String) -> RemoteError? {
        if status == LIBSSH2_ERROR_TIMEOUT {
            return RemoteError(
                .timeout, host: host.name,
                "\(action) on \(host.endpoint) did not finish within \(Self.seconds(host.connectTimeoutSeconds))")
        }
        let error = failure(Int(status), while: action)
        return error.kind == .connectionLost ? error : nil
    }
}

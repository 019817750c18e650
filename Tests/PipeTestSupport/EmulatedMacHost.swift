import Foundation

/// An emulated cloud Mac for tests: a real sshd started by `scripts/mac-host`, with its own host key, login and
/// emulator config. Tests rewrite `configURL` to produce scenarios; the emulator reads it on every call.
public final class EmulatedMacHost {
    public let name: String
    public let port: Int
    public let user: String
    public let identityFile: URL
    public let knownHostsFile: URL
    public let stateDirectory: URL
    public let configURL: URL
    /// This host's work folder in its account's home (`work-dir:`): hosts of one test run share the account, and each
    /// keeps its runs and build caches apart, as each Mac has its own disk. `stop()` removes it.
    public let workDirectory: String

    /// Starts a host from `config` (a JSON file in the emulator's host config format; default
    /// `emulator/hosts/default.json`). `user`: the login (as root; a hostile host gets its own, so what it plants
    /// cannot reach the other hosts' account); `tools`: a folder whose executables replace the host's tools.
    public init(
        name: String = "mac-1", config: URL? = nil, stateDirectory: URL, user: String? = nil, tools: URL? = nil
    ) throws {
        var arguments = [
            "up", "--state", stateDirectory.path, "--name", name, "--emulator", RepositoryPaths.emulatorBinary.path,
        ]
        if let config { arguments += ["--config", config.path] }
        if let user { arguments += ["--user", user] }
        if let tools { arguments += ["--tools", tools.path] }
        let result = try CommandRunner.run(RepositoryPaths.macHostScript, arguments)
        guard result.exitCode == 0 else {
            throw EmulatedMacHostError(message: "scripts/mac-host up failed (\(result.exitCode)):\n\(result.combined)")
        }
        var facts: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { facts[parts[0]] = parts[1] }
        }
        guard let port = facts["port"].flatMap(Int.init), let user = facts["user"], let identity = facts["identity"],
            let knownHosts = facts["known_hosts"], let state = facts["state"], let configPath = facts["config"]
        else {
            throw EmulatedMacHostError(message: "scripts/mac-host printed no host facts:\n\(result.combined)")
        }
        self.name = name
        self.port = port
        self.user = user
        self.identityFile = URL(fileURLWithPath: identity)
        self.knownHostsFile = URL(fileURLWithPath: knownHosts)
        self.stateDirectory = URL(fileURLWithPath: state)
        self.configURL = URL(fileURLWithPath: configPath)
        self.workDirectory = "pipe-work-\(name)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The host's entry for a Pipe hosts file.
    public func hostsFileEntry(capacity: Int = 1, knownHosts: URL? = nil) -> String {
        """
          - name: \(name)
            address: 127.0.0.1
            port: \(port)
            user: \(user)
            identity-file: \(identityFile.path)
            known-hosts: \((knownHosts ?? knownHostsFile).path)
            work-dir: \(workDirectory)
            capacity: \(capacity)

        """
    }

    /// The emulator config as a JSON object, to change and write back with `writeConfig`.
    public func readConfig() throws -> [String: Any] {
        let data = try Data(contentsOf: configURL)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    public func writeConfig(_ config: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: configURL)
    }

    /// Runs a command on the host as its login user with OpenSSH (test inspection only, never Pipe's own path).
    public func inspect(_ command: String) throws -> CommandResult {
        try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ssh"),
            [
                "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=\(knownHostsFile.path)", "-o",
                "StrictHostKeyChecking=yes", "-i", identityFile.path, "-p", "\(port)", "\(user)@127.0.0.1", command,
            ])
    }

    /// The sshd log (to check, e.g., that no command ran).
    public func sshdLog() -> String {
        (try? String(contentsOf: stateDirectory.appendingPathComponent("sshd.log"), encoding: .utf8)) ?? ""
    }

    public func stop() {
        _ = try? CommandRunner.run(RepositoryPaths.macHostScript, ["down", "--state", stateDirectory.path])
        if let entry = getpwnam(user), let home = entry.pointee.pw_dir {
            try? FileManager.default.removeItem(atPath: String(cString: home) + "/" + workDirectory)
        }
    }

    deinit { stop() }
}

public struct EmulatedMacHostError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

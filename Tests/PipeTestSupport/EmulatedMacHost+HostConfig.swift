import PipeCore

extension EmulatedMacHost {
    /// The host as `HostConfig` (what a hosts file entry for it loads as), for tests that connect to it directly.
    public func hostConfig(workDirectory: String? = nil, capacity: Int = 1) -> HostConfig {
        HostConfig(
            name: name, address: "127.0.0.1", port: port, user: user, identityFile: identityFile.path,
            knownHostsFile: knownHostsFile.path, capacity: capacity, workDirectory: workDirectory ?? self.workDirectory)
    }
}

import PipeBasics

/// Picks the hosts a run may use, in the order to try them.
public enum HostChooser {
    /// `--host` wins; then the pipeline's names, then its labels; with neither, every host in file order.
    public static func candidates(
        for selection: HostSelection, override: String?, among hosts: [HostConfig]
    ) throws -> [HostConfig] {
        guard !hosts.isEmpty else {
            throw RequestError(
                "no Mac hosts are configured: add one to .pipe/hosts.yml (`make mac-up` writes one for the "
                    + "emulated host on this machine)")
        }
        let known = hosts.map(\.name)
        func named(_ name: String, from source: String) throws -> HostConfig {
            if let host = hosts.first(where: { $0.name == name }) { return host }
            var message = "\(source) names the host '\(name)', which is not in the hosts file"
            if let near = EditDistance.nearest(to: name, in: known) { message += "; did you mean '\(near)'?" }
            throw RequestError(message + " (known hosts: \(known.joined(separator: ", ")))")
        }
        if let override { return [try named(override, from: "--host")] }
        if !selection.names.isEmpty {
            return try selection.names.map { try named($0, from: "the pipeline") }
        }
        if !selection.labels.isEmpty {
            // A host with several Xcodes matches an `xcode` label any of them carries (`xcodes:` in the hosts file).
            let matching = hosts.filter { host in
                selection.labels.allSatisfy {
                    host.labels[$0.key] == $0.value || ($0.key == "xcode" && host.xcodes[$0.value] != nil)
                }
            }
            guard !matching.isEmpty else {
                let wanted = selection.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                let have = hosts.map { host in
                    let labels = host.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    return "\(host.name) (\(labels.joined(separator: ", ")))"
                }
                throw RequestError(
                    "no host has the labels \(wanted.joined(separator: ", ")); hosts: \(have.joined(separator: "; "))")
            }
            return matching
        }
        return hosts
    }
}

import Foundation
import PipeCore

/// Turns a hosts file's tree into `[HostConfig]`, collecting every problem on the way.
struct HostsFileDecoder {
    static let hostKeys = HostsFileShape.host.keyNames

    let baseDirectory: URL
    let home: String?
    let problems: ProblemCollector

    func decode(_ root: YAMLNode?) -> [HostConfig] {
        guard let root else {
            problems.error(SpecKeyPath(), at: .start, "the file is empty; list the Mac hosts under 'hosts:'")
            return []
        }
        problems.reportDuplicateKeys(in: root)
        let reader = SpecReader(problems: problems, interpolator: nil)
        guard let top = reader.mapping(root, at: SpecKeyPath(), expected: "a mapping with 'hosts:'") else { return [] }
        top.rejectUnknownKeys(allowed: HostsFileShape.top.keyNames)
        let path = SpecKeyPath([.key("hosts")])
        guard let node = top.required("hosts", hint: "list the Mac hosts under 'hosts:'") else { return [] }
        guard let items = node.sequence else {
            reader.mismatch(node, at: path, expected: "a list of hosts", hint: "start each host with '- name:'")
            return []
        }
        if items.isEmpty { problems.error(path, at: node.start, "no hosts; add at least one") }
        var hosts: [HostConfig] = []
        var firstByName: [String: YAMLNode] = [:]
        for (index, item) in items.enumerated() {
            let hostPath = path.appending(index)
            guard let mapping = reader.mapping(item, at: hostPath, expected: "a host (a mapping with 'name:')") else {
                continue
            }
            if let nameNode = mapping.value("name"), let name = nameNode.scalar?.text {
                if let first = firstByName[name] {
                    problems.error(
                        hostPath.appending("name"), at: nameNode.start,
                        "another host is already named '\(name)' (line \(first.start.line)); host names must be "
                            + "unique")
                } else {
                    firstByName[name] = nameNode
                }
            }
            if let host = decodeHost(mapping) { hosts.append(host) }
        }
        return hosts
    }

    private func decodeHost(_ host: MappingReader) -> HostConfig? {
        host.rejectUnknownKeys(allowed: Self.hostKeys)
        let reader = host.reader
        let name = host.required("name").flatMap { node -> String? in
            guard let name = reader.nonEmptyString(node, at: host.path.appending("name")) else { return nil }
            guard Self.isValidHostName(name) else {
                problems.error(
                    host.path.appending("name"), at: node.start,
                    "'\(name)' cannot name a host (it appears in folder names): use letters, digits, '.', '_' and "
                        + "'-', starting with a letter or digit")
                return nil
            }
            return name
        }
        let address = host.required("address", hint: "the host's DNS name or IP address")
            .flatMap { reader.nonEmptyString($0, at: host.path.appending("address")) }
        let user = host.required("user", hint: "the login name on the Mac")
            .flatMap { reader.nonEmptyString($0, at: host.path.appending("user")) }
        let knownHosts = host.required(
            "known-hosts", hint: "an OpenSSH known_hosts file holding the host's key (host keys are always checked)"
        ).flatMap { path("known-hosts", node: $0, in: host) }
        let port = ranged("port", in: host, 1...65_535, "a TCP port, 1 to 65535") ?? 22
        let capacity = ranged(
            "capacity", in: host, 1...Int.max, "the number of runs the host takes at once, at least 1")
        let identityFile = host.value("identity-file").flatMap { path("identity-file", node: $0, in: host) }
        let passphraseFile = host.value("identity-passphrase-file").flatMap {
            path("identity-passphrase-file", node: $0, in: host)
        }
        let passphraseEnvironment = host.value("identity-passphrase-env").flatMap { node -> String? in
            let keyPath = host.path.appending("identity-passphrase-env")
            guard let name = reader.nonEmptyString(node, at: keyPath) else { return nil }
            guard Interpolator.isValidName(name), !name.contains("-") else {
                problems.error(
                    keyPath, at: node.start, "'\(name)' is not an environment variable name (e.g. MAC_KEY_PASSPHRASE)")
                return nil
            }
            return name
        }
        let useAgent = host.read("use-agent", { $0.boolean }) ?? false
        checkAuthentication(
            host, identityFile: identityFile, useAgent: useAgent,
            hasPassphrase: passphraseFile != nil || passphraseEnvironment != nil)
        let xcodes = host.read("xcodes", { $0.stringMap }) ?? [:]
        if let node = host.value("xcodes"), let entries = node.mapping {
            for entry in entries {
                guard let key = entry.key.keyText, let value = xcodes[key], !value.hasPrefix("/") else { continue }
                problems.error(
                    host.path.appending("xcodes").appending(key), at: entry.value.start,
                    "'\(value)' is not an absolute path; give the Xcode's DEVELOPER_DIR, e.g. "
                        + "/Applications/Xcode-16.2.app/Contents/Developer")
            }
        }
        let workDirectory = host.read("work-dir", { $0.nonEmptyString }) ?? "pipe-work"
        let connectTimeout = host.read("connect-timeout", { $0.duration }) ?? 15
        let labels = host.read("labels", { $0.stringMap }) ?? [:]
        let transferSessions = ranged(
            "transfer-sessions", in: host, 1...2, "1 (one session) or 2 (a big download split across two at once)")
        let compression = host.value("compression").flatMap {
            host.reader.choice($0, at: host.path.appending("compression"), among: UploadCompression.allCases)
        }
        let trust = host.value("trust").flatMap {
            host.reader.choice($0, at: host.path.appending("trust"), among: TrustLevel.allCases)
        }
        let buildCache = decodeBuildCache(host)
        guard let name, let address, let user, let knownHosts else { return nil }
        return HostConfig(
            name: name, address: address, port: port, user: user, identityFile: identityFile,
            identityPassphraseEnvironment: passphraseEnvironment, identityPassphraseFile: passphraseFile,
            useAgent: useAgent, knownHostsFile: knownHosts, labels: labels, capacity: capacity ?? 1,
            workDirectory: workDirectory, xcodes: xcodes, connectTimeoutSeconds: connectTimeout,
            transferSessions: transferSessions ?? 1, uploadCompression: compression ?? .auto,
            trust: trust ?? .trusted, buildCache: buildCache)
    }

    /// `build-caches: 2` (caches per identity, 0 for none) and `build-cache: { max-size: 50GiB, max-age: 14d }`.
    private func decodeBuildCache(_ host: MappingReader) -> BuildCachePolicy {
        var policy = BuildCachePolicy()
        if let count = ranged(
            "build-caches", in: host, 0...64,
            "the build caches the host keeps per build identity, 0 (none) to 64")
        {
            policy.cachesPerIdentity = count
        }
        guard let node = host.value("build-cache") else { return policy }
        let path = host.path.appending("build-cache")
        guard
            let eviction = host.reader.mapping(
                node, at: path, expected: "a mapping of max-size and max-age, e.g. { max-size: 50GiB, max-age: 14d }")
        else { return policy }
        eviction.rejectUnknownKeys(allowed: HostsFileShape.buildCache.keyNames)
        if let size = eviction.read("max-size", { $0.byteSize }) { policy.maxSizeBytes = size }
        if let age = eviction.read("max-age", { $0.duration }) { policy.maxAgeSeconds = age }
        return policy
    }

    private func checkAuthentication(
        _ host: MappingReader, identityFile: String?, useAgent: Bool, hasPassphrase: Bool
    ) {
        if identityFile == nil, !useAgent, !host.contains("identity-file") {
            problems.error(
                host.path, at: host.node.start,
                "no way to log in: set 'identity-file:' (an ed25519 or ECDSA private key) or 'use-agent: true'")
        }
        if let envNode = host.value("identity-passphrase-env"), host.value("identity-passphrase-file") != nil {
            problems.error(
                host.path.appending("identity-passphrase-env"), at: envNode.start,
                "give the passphrase either by 'identity-passphrase-env:' or by 'identity-passphrase-file:', not both")
        }
        if hasPassphrase, !host.contains("identity-file") {
            let key =
                host.value("identity-passphrase-env") != nil ? "identity-passphrase-env" : "identity-passphrase-file"
            problems.error(
                host.path.appending(key), at: host.value(key)?.start,
                "a passphrase unlocks 'identity-file:', which is not set; add it or remove the passphrase")
        }
    }

    private func ranged(_ key: String, in host: MappingReader, _ range: ClosedRange<Int>, _ meaning: String) -> Int? {
        guard let node = host.value(key), let value = host.reader.integer(node, at: host.path.appending(key)) else {
            return nil
        }
        guard range.contains(value) else {
            problems.error(host.path.appending(key), at: node.start, "\(value) is out of range: expected \(meaning)")
            return nil
        }
        return value
    }

    /// A file path: `~/…` from `HOME`, relative paths from the hosts file's folder.
    private func path(_ key: String, node: YAMLNode, in host: MappingReader) -> String? {
        let keyPath = host.path.appending(key)
        guard let text = host.reader.nonEmptyString(node, at: keyPath) else { return nil }
        if text == "~" || text.hasPrefix("~/") {
            guard let home, !home.isEmpty else {
                problems.error(
                    keyPath, at: node.start, "'\(text)' starts with '~' but HOME is not set; write the full path")
                return nil
            }
            return URL(fileURLWithPath: home).appendingPathComponent(String(text.dropFirst(2))).standardizedFileURL.path
        }
        if text.hasPrefix("/") { return URL(fileURLWithPath: text).standardizedFileURL.path }
        return baseDirectory.appendingPathComponent(text).standardizedFileURL.path
    }

    static func isValidHostName(_ name: String) -> Bool {
        func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
        }
        guard let first = name.unicodeScalars.first, isAlphanumeric(first) else { return false }
        return name.unicodeScalars.allSatisfy { isAlphanumeric($0) || "._-".unicodeScalars.contains($0) }
    }
}

import Foundation
import PipeBasics

/// An OpenSSH-format known_hosts file, read for one decision: is the key a host presented the one recorded for it.
///
/// Matching follows OpenSSH, not libssh2: a host on a port other than 22 is looked up only as `[address]:port` (a
/// plain `address` line is for port 22), comma-separated patterns with `*`, `?` and `!negation`, hashed `|1|` names,
/// `@revoked` lines; `@cert-authority` lines are skipped (Pipe does not accept host certificates).
struct KnownHostsFile {
    /// One usable line of the file.
    struct Entry {
        enum Marker {
            case none
            case revoked
        }

        enum Names {
            case patterns([String])
            case hashed(salt: [UInt8], hash: [UInt8])
        }

        var line: Int
        var marker: Marker
        var names: Names
        var key: SSHHostKey

        /// Whether this line names `lookupName` (already lowercased), the way OpenSSH's `match_hostname` decides.
        func names(_ lookupName: String) -> Bool {
            switch names {
            case .hashed(let salt, let hash):
                return HMACDigest.authenticationCode(.sha1, key: salt, message: Array(lookupName.utf8)) == hash
            case .patterns(let patterns):
                var matched = false
                for pattern in patterns {
                    let negated = pattern.hasPrefix("!")
                    let body = negated ? String(pattern.dropFirst()) : pattern
                    guard KnownHostsFile.wildcardMatch(Array(lookupName.utf8), Array(body.lowercased().utf8)) else {
                        continue
                    }
                    if negated { return false }
                    matched = true
                }
                return matched
            }
        }
    }

    let path: String
    /// `false` when the file does not exist (every host is then unknown).
    let exists: Bool
    let entries: [Entry]

    /// Reads `path`; a missing file is an empty one, an unreadable file is an error (its text says why).
    static func load(path: String) throws -> KnownHostsFile {
        guard FileManager.default.fileExists(atPath: path) else {
            return KnownHostsFile(path: path, text: "", exists: false)
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return KnownHostsFile(path: path, text: String(decoding: data, as: UTF8.self))
        } catch {
            throw KnownHostsUnreadable(path: path, reason: "\(error.localizedDescription)")
        }
    }

    init(path: String, text: String, exists: Bool = true) {
        self.path = path
        self.exists = exists
        var entries = [Entry]()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let entry = Self.parse(rawLine, line: index + 1) { entries.append(entry) }
        }
        self.entries = entries
    }

    /// OpenSSH's lookup name for a host: lowercased, `[address]:port` unless the port is 22.
    static func lookupName(address: String, port: Int) -> String {
        SSHHostKey.knownHostsName(address: address.lowercased(), port: port)
    }

    /// What the file says about `key` presented by `address:port`.
    func verdict(for key: SSHHostKey, address: String, port: Int) -> HostKeyVerdict {
        let name = Self.lookupName(address: address, port: port)
        let naming = entries.filter { $0.names(name) }
        if let revoked = naming.first(where: { $0.marker == .revoked && $0.key == key }) {
            return .revoked(line: revoked.line)
        }
        let trusted = naming.filter { $0.marker == .none }
        if let match = trusted.first(where: { $0.key == key }) {
            return .trusted(line: match.line)
        }
        if let changed = trusted.first(where: { $0.key.type == key.type }) {
            return .changed(line: changed.line, recordedFingerprint: changed.key.fingerprint)
        }
        var defaultPortLines = [Int]()
        if port != 22 {
            let bare = Self.lookupName(address: address, port: 22)
            defaultPortLines = entries.filter { $0.marker == .none && $0.key == key && $0.names(bare) }.map(\.line)
        }
        return .unknown(
            otherKeyTypes: trusted.map { "\($0.key.type) (line \($0.line))" }, portMismatchLines: defaultPortLines)
    }

    /// Key types recorded for the host, in file order: the host-key algorithms to ask for first, as OpenSSH does,
    /// so a host known by its ECDSA key is not refused for offering ED25519.
    func keyTypes(address: String, port: Int) -> [String] {
        let name = Self.lookupName(address: address, port: port)
        var types = [String]()
        for entry in entries where entry.marker == .none && entry.names(name) && !types.contains(entry.key.type) {
            types.append(entry.key.type)
        }
        return types
    }

    /// The trusted lines naming the host with a key of another type than `key`'s, in file order.
    func keysOfOtherTypes(than key: SSHHostKey, address: String, port: Int) -> [Entry] {
        let name = Self.lookupName(address: address, port: port)
        return entries.filter { $0.marker == .none && $0.key.type != key.type && $0.names(name) }
    }

    private static func parse(_ rawLine: Substring, line: Int) -> Entry? {
        var fields = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
        guard let first = fields.first, !first.hasPrefix("#") else { return nil }
        var marker = Entry.Marker.none
        if first.hasPrefix("@") {
            guard first == "@revoked" else { return nil }  // @cert-authority and unknown markers: not for us
            marker = .revoked
            fields.removeFirst()
        }
        guard fields.count >= 3, let blob = Data(base64Encoded: fields[2]), let key = SSHHostKey(blob: blob),
            key.type == fields[1]
        else { return nil }
        let names: Entry.Names
        if fields[0].hasPrefix("|1|") {
            let parts = fields[0].split(separator: "|", omittingEmptySubsequences: false)
            guard parts.count == 4, let salt = Data(base64Encoded: String(parts[2])),
                let hash = Data(base64Encoded: String(parts[3]))
            else { return nil }
            names = .hashed(salt: Array(salt), hash: Array(hash))
        } else {
            names = .patterns(fields[0].split(separator: ",").map(String.init))
        }
        return Entry(line: line, marker: marker, names: names, key: key)
    }

    /// OpenSSH's `match_pattern`: `*` matches any run of characters, `?` any one character, the rest literally.
    static func wildcardMatch(_ text: [UInt8], _ pattern: [UInt8]) -> Bool {
        var textIndex = 0
        var patternIndex = 0
        var starPattern = -1
        var starText = 0
        while textIndex < text.count {
            if patternIndex < pattern.count
                && (pattern[patternIndex] == UInt8(ascii: "?") || pattern[patternIndex] == text[textIndex])
            {
                textIndex += 1
                patternIndex += 1
            } else if patternIndex < pattern.count && pattern[patternIndex] == UInt8(ascii: "*") {
                starPattern = patternIndex
                starText = textIndex
                patternIndex += 1
            } else if starPattern >= 0 {
                patternIndex = starPattern + 1
                starText += 1
                textIndex = starText
            } else {
                return false
            }
        }
        while patternIndex < pattern.count && pattern[patternIndex] == UInt8(ascii: "*") { patternIndex += 1 }
        return patternIndex == pattern.count
    }
}

/// OpenSSH's warning before a new key is trusted for a host that has keys of other types recorded
/// (`show_other_keys` in its sshconnect.c): a man in the middle can offer only a key type the client has not
/// recorded, so a new type for a known host is suspect.
public enum OtherKeyTypesWarning {
    /// One `WARNING: … key found for host …` paragraph per recorded key of another type, as OpenSSH words it;
    /// `nil` when there is none (or the file cannot be read: the caller's own check reports that).
    public static func text(for key: SSHHostKey, address: String, port: Int, knownHostsPath: String) -> String? {
        guard let file = try? KnownHostsFile.load(path: knownHostsPath) else { return nil }
        let name = KnownHostsFile.lookupName(address: address, port: port)
        let paragraphs = file.keysOfOtherTypes(than: key, address: address, port: port).map { entry in
            "WARNING: \(entry.key.displayType) key found for host \(name)\nin \(knownHostsPath):\(entry.line)\n"
                + "\(entry.key.displayType) key fingerprint \(entry.key.fingerprint)."
        }
        return paragraphs.isEmpty ? nil : paragraphs.joined(separator: "\n")
    }
}

/// The known_hosts file exists but could not be read.
struct KnownHostsUnreadable: Error {
    var path: String
    var reason: String
}

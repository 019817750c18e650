import Foundation
import PipeBasics

/// A host's public key as the SSH server presented it, with the names OpenSSH uses for it.
public struct SSHHostKey: Sendable, Equatable {
    /// The key's algorithm as OpenSSH writes it in known_hosts, e.g. `ssh-ed25519`.
    public let type: String
    /// The key in SSH wire format: what a known_hosts line holds in base64.
    public let blob: Data

    /// Reads the algorithm name from a wire-format key; `nil` when `blob` is not one.
    public init?(blob: Data) {
        guard blob.count >= 4 else { return nil }
        let length = blob.prefix(4).reduce(0) { ($0 << 8) | Int($1) }
        guard length > 0, length <= blob.count - 4 else { return nil }
        let start = blob.startIndex + 4
        guard let type = String(bytes: blob[start..<start + length], encoding: .utf8) else { return nil }
        self.type = type
        self.blob = Data(blob)
    }

    /// `SHA256:<base64 without padding>`, as `ssh-keygen -l` and OpenSSH's prompts print it.
    public var fingerprint: String {
        let hex = SHA256Digest.hex(of: blob)
        var bytes = [UInt8]()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        let base64 = Data(bytes).base64EncodedString()
        return "SHA256:" + base64.replacingOccurrences(of: "=", with: "")
    }

    /// OpenSSH's short name for the key kind in messages (`ED25519`, `ECDSA`, `RSA`).
    public var displayType: String {
        switch type {
        case "ssh-ed25519": return "ED25519"
        case "ssh-rsa": return "RSA"
        case "ssh-dss": return "DSA"
        case let other where other.hasPrefix("ecdsa-"): return "ECDSA"
        default: return type
        }
    }

    /// The `-t` value of `ssh-keyscan` that fetches this kind of key.
    var keyscanType: String {
        switch type {
        case "ssh-ed25519": return "ed25519"
        case "ssh-rsa": return "rsa"
        case "ssh-dss": return "dsa"
        case let other where other.hasPrefix("ecdsa-"): return "ecdsa"
        default: return type
        }
    }

    /// The name a known_hosts line uses for a host: the address itself on port 22, `[address]:port` elsewhere.
    public static func knownHostsName(address: String, port: Int) -> String {
        port == 22 ? address : "[\(address)]:\(port)"
    }

    /// The known_hosts line that trusts this key for `address` and `port`, written the way OpenSSH writes it.
    public func knownHostsLine(address: String, port: Int) -> String {
        "\(Self.knownHostsName(address: address, port: port)) \(type) \(blob.base64EncodedString())"
    }
}

import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#endif

/// The one rule for every header a reverse proxy adds (the client's forwarded address now, a web page's identity
/// header later): it is believed only when the request came over the server's Unix socket, which only the proxy
/// can open, or when it carries the shared secret header that the proxy adds. Anything on the network, and any
/// local process (loopback is open to every account on the machine), can write the header itself; neither can
/// open the socket or know the secret.
public struct ProxyHeaderTrust: Sendable {
    /// The header holding the client's address, lower case (`x-forwarded-for`).
    public let forwardedFor: String
    /// The header holding the shared secret, lower case; `nil`: only the Unix socket is believed.
    public let secretHeader: String?
    private let key: [UInt8]
    private let secretDigest: [UInt8]?

    /// - Parameters:
    ///   - secretHeader: the header the proxy adds with `secret` (both or neither).
    public init(forwardedFor: String = "X-Forwarded-For", secretHeader: String? = nil, secret: String? = nil) {
        self.forwardedFor = forwardedFor.lowercased()
        var generator = SystemRandomNumberGenerator()
        key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if let secretHeader, let secret, !secret.isEmpty {
            self.secretHeader = secretHeader.lowercased()
            secretDigest = HMACDigest.authenticationCode(.sha256, key: key, message: Array(secret.utf8))
        } else {
            self.secretHeader = nil
            secretDigest = nil
        }
    }

    /// Whether the headers the proxy adds can be believed for this request.
    public func believesProxy(_ head: HTTPRequestHead) -> Bool {
        if head.viaUnixSocket { return true }
        guard let secretHeader, let secretDigest, !head.repeatedHeaders.contains(secretHeader),
            let given = head.header(secretHeader)
        else { return false }
        // Compared as keyed digests: the time taken says nothing about the secret or its length.
        let digest = HMACDigest.authenticationCode(.sha256, key: key, message: Array(given.utf8))
        return HMACDigest.constantTimeEqual(digest, secretDigest)
    }

    /// A header the proxy adds, when the request is believed to come through it; else `nil`.
    public func proxyHeader(_ name: String, in head: HTTPRequestHead) -> String? {
        believesProxy(head) ? head.header(name) : nil
    }

    /// The address the request is from: the one the proxy forwarded, when believed and an IP address (the last in
    /// the list, the one the proxy itself added), else the connection's peer.
    public func clientAddress(_ head: HTTPRequestHead) -> String {
        guard let list = proxyHeader(forwardedFor, in: head),
            let last = list.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
            Self.isIPAddress(last)
        else { return head.remoteAddress }
        return last
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

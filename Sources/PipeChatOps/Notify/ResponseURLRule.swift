/// One entry of `response-urls`: a `response_url` may be posted to when its scheme, host and port are the rule's
/// and its path starts with the rule's path. URLs are compared parsed, never as text, and a URL that could be read
/// two ways (user info, a backslash, a dot segment, a byte that is not printable ASCII) is never posted to.
public struct ResponseURLRule: Sendable, Equatable, CustomStringConvertible {
    public var scheme: String
    /// Lower case, without a trailing dot; an IPv6 address keeps its brackets.
    public var host: String
    /// `nil` when the rule ends in `:` with no port (`http://127.0.0.1:`): any port of the host.
    public var port: Int?
    /// Starts with `/`; a path that does not end in `/` matches itself and what lies below it.
    public var path: String
    public let description: String

    /// Parses a rule as written in the config; the error says what is wrong with it.
    public init(_ text: String) throws(ResponseURLError) {
        let parsed = try ParsedURL.parse(text, anyPort: true)
        guard parsed.query == nil else { throw ResponseURLError("a response-urls entry holds no query or fragment") }
        scheme = parsed.scheme
        host = parsed.host
        port = parsed.port
        path = parsed.path
        description = text
    }

    /// Whether `url` may be posted to.
    public func allows(_ url: String) -> Bool {
        guard let parsed = try? ParsedURL.parse(url, anyPort: false) else { return false }
        guard parsed.scheme == scheme, parsed.host == host, port == nil || parsed.port == port else { return false }
        if path.hasSuffix("/") { return parsed.path.hasPrefix(path) }
        return parsed.path == path || parsed.path.hasPrefix(path + "/")
    }

    /// The reason `url` is not allowed by any of `rules`; `nil` when one allows it.
    public static func refusal(of url: String, by rules: [ResponseURLRule]) -> String? {
        if rules.contains(where: { $0.allows(url) }) { return nil }
        do {
            _ = try ParsedURL.parse(url, anyPort: false)
        } catch {
            return error.message
        }
        return "it is not under any of chatops.response-urls (\(rules.map(\.description).joined(separator: ", ")))"
    }
}

/// Why a URL is not one Pipe posts to.
public struct ResponseURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// An `http` or `https` URL split strictly into its parts.
struct ParsedURL: Equatable {
    var scheme: String
    var host: String
    /// The port given, or the scheme's; `nil` only for a rule's `host:` (any port).
    var port: Int?
    var path: String
    /// What follows the path (`?…` or `#…`).
    var query: String?

    static func parse(_ text: String, anyPort: Bool) throws(ResponseURLError) -> ParsedURL {
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), !text.contains("\\") else {
            throw ResponseURLError("the URL holds spaces, control characters, a backslash or non-ASCII bytes")
        }
        guard let separator = text.range(of: "://") else {
            throw ResponseURLError("the URL must start with https:// or http://")
        }
        let scheme = text[..<separator.lowerBound].lowercased()
        let defaultPort: Int
        switch scheme {
        case "https": defaultPort = 443
        case "http": defaultPort = 80
        default: throw ResponseURLError("the URL must start with https:// or http://, not \(scheme)://")
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else {
            throw ResponseURLError("the URL holds user info (an @ before the host); it is never posted to")
        }
        var hostPart = Substring(authority)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw ResponseURLError("the URL's [IPv6] is open") }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ResponseURLError("the URL's host is followed by \(after)") }
                portText = after.dropFirst()
            }
            guard hostPart.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw ResponseURLError("the URL's [IPv6] host holds other characters")
            }
        } else if let colon = authority.firstIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" })
            else { throw ResponseURLError("the URL's host may hold only letters, digits, . and -") }
        } else {
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" })
            else { throw ResponseURLError("the URL's host may hold only letters, digits, . and -") }
        }
        var host = hostPart.lowercased()
        if host.hasSuffix("."), !host.hasPrefix("[") { host.removeLast() }
        guard !host.isEmpty, !host.hasSuffix(".") else { throw ResponseURLError("the URL has no host") }
        var port: Int? = defaultPort
        if let portText {
            if portText.isEmpty {
                port = anyPort ? nil : defaultPort
            } else {
                guard portText.count <= 5, portText.allSatisfy(\.isWholeNumberASCII), let value = Int(portText),
                    (1...65535).contains(value)
                else { throw ResponseURLError("the URL's port must be a number from 1 to 65535") }
                port = value
            }
        }
        let tail = rest[authorityEnd...]
        let pathEnd = tail.firstIndex { $0 == "?" || $0 == "#" } ?? tail.endIndex
        let path = tail[..<pathEnd].isEmpty ? "/" : String(tail[..<pathEnd])
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.lowercased().replacingOccurrences(of: "%2e", with: ".")
        }
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else {
            throw ResponseURLError("the URL's path holds a . or .. segment")
        }
        return ParsedURL(
            scheme: scheme, host: host, port: port, path: path,
            query: pathEnd == tail.endIndex ? nil : String(tail[pathEnd...]))
    }
}

extension Character {
    fileprivate var isWholeNumberASCII: Bool { ("0"..."9").contains(self) }
}

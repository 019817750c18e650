/// Builds API paths from values that may be hostile (an owner, a repository, a GitLab project path from a webhook
/// or the config): each value becomes exactly one encoded segment, so none can add a segment, a query or a
/// fragment, or climb with `..`.
public enum ForgePath {
    /// `/` + the segments, each encoded; throws when one is empty or a dot segment.
    public static func make(_ segments: [Segment]) throws -> String {
        var path = ""
        for segment in segments {
            switch segment {
            case .fixed(let text): path += "/" + text
            case .value(let name, let value):
                guard !value.isEmpty, value != ".", value != "..", !value.unicodeScalars.contains("\u{0}") else {
                    throw ForgeRequestError.badPathValue(name: name, value: value)
                }
                path += "/" + encode(value)
            case .number(let name, let value):
                guard value > 0 else { throw ForgeRequestError.badPathValue(name: name, value: String(value)) }
                path += "/" + String(value)
            case .sha(let sha): path += "/" + sha.value
            }
        }
        return path
    }

    /// A piece of a path: fixed text Pipe wrote, or a value that becomes one encoded segment.
    public enum Segment: Sendable {
        case fixed(String)
        case value(String, String)
        case number(String, Int)
        case sha(CommitSHA)
    }

    /// Percent-encoding of everything but RFC 3986's unreserved characters (so `/`, `?`, `#`, `%` and `+` too).
    public static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return result
    }
}

/// A commit id as forges take it in a path: 40 (SHA-1) or 64 (SHA-256) hexadecimal digits, kept lowercase.
public struct CommitSHA: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    public init(_ text: String) throws {
        let lower = text.lowercased()
        guard lower.count == 40 || lower.count == 64, lower.utf8.allSatisfy(CommitSHA.isHexDigit) else {
            throw ForgeRequestError.badCommitSHA(text)
        }
        value = lower
    }

    public var description: String { value }

    /// The first 7 digits, as forges show a commit.
    public var short: String { String(value.prefix(7)) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}

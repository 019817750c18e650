import Foundation

/// What a workspace folder holds — every folder, file and symlink with its kind, permission bits, size and content
/// digest — as kept on a host beside the cached copy of that workspace (`<work dir>/cache/<key>/manifest`).
///
/// The host only stores and returns the text; Pipe alone writes and compares it, so the format is Pipe's own: a
/// version line, then one line per entry, `kind mode size digest path`, sorted by path (a parent before its
/// children). Paths are relative, `/`-separated, never `.` or `..`; a backslash or a newline in a name is escaped.
struct WorkspaceManifest: Equatable {
    static let header = "pipe-workspace-manifest 1"

    enum Kind: Character {
        case directory = "d"
        case file = "f"
        case symlink = "l"
    }

    struct Entry: Equatable {
        var path: String
        var kind: Kind
        /// Permission bits (`st_mode & 0o7777`).
        var mode: UInt32
        /// Bytes of a file, of a symlink's target; 0 for a folder.
        var size: Int64
        /// `WorkspaceDigest` of a file's content or a symlink's target; `-` for a folder; empty until computed.
        var digest: String

        /// What must match for the host's copy to be this entry.
        func sameContent(as other: Entry) -> Bool {
            kind == other.kind && mode == other.mode && size == other.size && digest == other.digest
        }
    }

    /// Sorted by path.
    var entries: [Entry]

    var text: String {
        var lines = [Self.header]
        lines.reserveCapacity(entries.count + 1)
        for entry in entries {
            lines.append(
                "\(entry.kind.rawValue) \(String(entry.mode, radix: 8)) \(entry.size) \(entry.digest) "
                    + Self.escape(entry.path))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a manifest written by `text`; `nil` when it is not one (an old version, a damaged file): the host's
    /// copy is then rebuilt from scratch rather than trusted.
    init?(text: Substring) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
        guard lines.first == Substring(Self.header) else { return nil }
        lines = lines.dropFirst()
        var entries = [Entry]()
        entries.reserveCapacity(lines.count)
        for line in lines {
            let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, let kindCharacter = fields[0].first, fields[0].count == 1,
                let kind = Kind(rawValue: kindCharacter), let mode = UInt32(fields[1], radix: 8),
                let size = Int64(fields[2]), let path = Self.unescape(fields[4]), Self.isSafeRelativePath(path)
            else { return nil }
            entries.append(Entry(path: path, kind: kind, mode: mode, size: size, digest: String(fields[3])))
        }
        self.entries = entries
    }

    init(entries: [Entry]) {
        self.entries = entries
    }

    /// A relative path with no empty, `.` or `..` component: safe to join to the cache folder on the host.
    static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0 != "." && $0 != ".."
        }
    }

    /// Newlines and backslashes escaped (by Unicode scalar: Swift joins `\r\n` into one `Character`).
    static func escape(_ path: String) -> String {
        guard path.unicodeScalars.contains(where: { $0 == "\\" || $0 == "\n" || $0 == "\r" }) else { return path }
        var escaped = String.UnicodeScalarView()
        for scalar in path.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": escaped.append(contentsOf: "\\n".unicodeScalars)
            case "\r": escaped.append(contentsOf: "\\r".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    static func unescape(_ text: Substring) -> String? {
        guard text.unicodeScalars.contains("\\") else { return String(text) }
        var result = String.UnicodeScalarView()
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                switch scalar {
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "r": result.append("\r")
                default: return nil
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.append(scalar)
            }
        }
        return escaping ? nil : String(result)
    }
}

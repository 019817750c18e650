import Foundation

/// What a workspace folder holds — every folder, file and symlink with its kind, permission bits, size and content
/// digest — as kept on a host beside the cached copy of that workspace (`<work dir>/cache/<key>/manifest`).
///
/// The host only stores and returns the text; Pipe alone writes and compares it, so the format is Pipe's own: a
/// version line, then one line per entry, `kind mode size digest path`, sorted by path (a parent before its
/// children: not sorted otherwise). Paths are relative, `/`-separated, never `.` or `..`; a backslash or a newline in a name is escaped.
struct WorkspaceManifest: Equatable {
    static let header = "pipe-workspace-manifest 1"
    /// Starts the lines a delta sync appends to the host's manifest instead of rewriting it (`patch`).
    static let patchMarker = "pipe-workspace-manifest-patch"

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
        /// Local files only, never written: what `WorkspaceDigestCache` keys a known digest by.
        var stamp: WorkspaceDigestCache.Stamp? = nil

        /// What must match for the host's copy to be this entry.
        func sameContent(as other: Entry) -> Bool {
            kind == other.kind && mode == other.mode && size == other.size && digest == other.digest
        }
    }

    /// A folder before what is in it.
    var entries: [Entry]
    /// Lines of patches the text it was read from had (0 when written whole).
    var patchLines = 0

    var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Self.header.utf8.count + 1 + entries.count * 120)
        out += Self.header.utf8
        out.append(0x0a)
        for entry in entries { Self.appendLine(entry, to: &out) }
        return out
    }

    /// What turns a manifest into another when appended to it: after `patchMarker`, a line `x 0 0 - <path>` for each
    /// path removed (with everything under it), then the lines of the entries added or changed. A delta sync sends
    /// this instead of the whole manifest (1.2 MB for 10,000 files); the host appends it.
    static func patch(deletions: [String], sends: [Entry]) -> [UInt8] {
        var out = Array(patchMarker.utf8) + [0x0a]
        for path in deletions {
            out += "x 0 0 - ".utf8
            out += escape(path).utf8
            out.append(0x0a)
        }
        for entry in sends { appendLine(entry, to: &out) }
        return out
    }

    private static func appendLine(_ entry: Entry, to out: inout [UInt8]) {
        out.append(UInt8(entry.kind.rawValue.asciiValue ?? 0x3f))
        out.append(0x20)
        append(UInt64(entry.mode), radix: 8, to: &out)
        out.append(0x20)
        append(UInt64(max(0, entry.size)), radix: 10, to: &out)
        out.append(0x20)
        out += entry.digest.utf8
        out.append(0x20)
        if entry.path.utf8.contains(where: { $0 == 0x5c || $0 == 0x0a || $0 == 0x0d }) {
            out += escape(entry.path).utf8
        } else {
            out += entry.path.utf8
        }
        out.append(0x0a)
    }

    /// Digits of `value` without making a `String` (10,000 entries: two numbers each).
    static func append(_ value: UInt64, radix: UInt64, to out: inout [UInt8]) {
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = value
            var count = 0
            repeat {
                buffer[buffer.count - 1 - count] = 0x30 + UInt8(rest % radix)
                rest /= radix
                count += 1
            } while rest > 0
            out += buffer[(buffer.count - count)...]
        }
    }

    /// Reads a manifest written by `bytes`, with any `patch`es appended to it; `nil` when it is not one (an old version, a damaged file): the host's
    /// copy is then rebuilt from scratch rather than trusted. Parsed as bytes: 10,000 lines as Swift `Character`s
    /// cost more than everything else a warm sync does on this side.
    init?(bytes: ArraySlice<UInt8>) {
        let header = Array(Self.header.utf8)
        guard bytes.count > header.count, bytes.prefix(header.count).elementsEqual(header),
            bytes[bytes.startIndex + header.count] == 0x0a
        else { return nil }
        var entries = [Entry]()
        var cursor = bytes.startIndex + header.count + 1
        let end = bytes.endIndex
        let marker = Array(Self.patchMarker.utf8)
        /// Once a patch starts: where each path is, and which entries a patch removed.
        var index: [String: Int]?
        var removed = [Bool]()
        func field(_ stop: UInt8) -> Range<Int>? {
            var index = cursor
            while index < end && bytes[index] != stop && bytes[index] != 0x0a { index += 1 }
            guard index < end, bytes[index] == stop else { return nil }
            defer { cursor = index + 1 }
            return cursor..<index
        }
        func number(_ range: Range<Int>, radix: UInt32) -> Int64? {
            guard !range.isEmpty, range.count < 20 else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 0x30 && byte < 0x30 + UInt8(radix) else { return nil }
                value = value * Int64(radix) + Int64(byte - 0x30)
            }
            return value
        }
        while cursor < end {
            if bytes[cursor] == marker[0], end - cursor > marker.count, bytes[cursor + marker.count] == 0x0a,
                bytes[cursor..<(cursor + marker.count)].elementsEqual(marker)
            {
                cursor += marker.count + 1
                patchLines += 1
                if index == nil {
                    var positions = [String: Int](minimumCapacity: entries.count)
                    for (position, entry) in entries.enumerated() { positions[entry.path] = position }
                    index = positions
                    removed = [Bool](repeating: false, count: entries.count)
                }
                continue
            }
            if index != nil { patchLines += 1 }
            if index != nil, bytes[cursor] == 0x78 {  // `x`: a removal
                guard field(0x20) != nil, field(0x20) != nil, field(0x20) != nil, field(0x20) != nil,
                    let pathRange = field(0x0a),
                    let path = Self.unescape(Substring(String(decoding: bytes[pathRange], as: UTF8.self)))
                else { return nil }
                if let position = index?[path], !removed[position] {
                    removed[position] = true
                    index?[path] = nil
                    if entries[position].kind == .directory {
                        let prefix = path + "/"
                        for other in entries.indices where !removed[other] && entries[other].path.hasPrefix(prefix) {
                            removed[other] = true
                            index?[entries[other].path] = nil
                        }
                    }
                }
                continue
            }
            guard let kindRange = field(0x20), kindRange.count == 1,
                let kind = Kind(rawValue: Character(UnicodeScalar(bytes[kindRange.lowerBound]))),
                let modeRange = field(0x20), let mode = number(modeRange, radix: 8),
                let sizeRange = field(0x20), let size = number(sizeRange, radix: 10),
                let digestRange = field(0x20), let pathRange = field(0x0a),
                let path = Self.unescape(Substring(String(decoding: bytes[pathRange], as: UTF8.self))),
                Self.isSafeRelativePath(path)
            else { return nil }
            let entry = Entry(
                path: path, kind: kind, mode: UInt32(truncatingIfNeeded: mode), size: size,
                digest: String(decoding: bytes[digestRange], as: UTF8.self))
            if let position = index?[path] {
                entries[position] = entry
            } else {
                if index != nil {
                    index?[path] = entries.count
                    removed.append(false)
                }
                entries.append(entry)
            }
        }
        self.entries = index == nil ? entries : entries.indices.filter { !removed[$0] }.map { entries[$0] }
    }

    init(entries: [Entry]) {
        self.entries = entries
    }

    /// A relative path with no empty, `.` or `..` component: safe to join to the cache folder on the host.
    static func isSafeRelativePath(_ path: String) -> Bool {
        var component = 0
        var dots = 0
        for byte in path.utf8 {
            if byte == 0x2f {
                if component == 0 || component == dots && dots <= 2 { return false }
                component = 0
                dots = 0
            } else {
                component += 1
                if byte == 0x2e { dots += 1 }
            }
        }
        return component > 0 && !(component == dots && dots <= 2)
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

import Foundation

/// A tar stream built header by header, for archives no honest `tar` makes: device nodes, setuid members, hard
/// links, links that lead out, names with `..`, long names through pax headers.
public struct RawTarArchive {
    public enum Kind: UInt8 {
        case file = 0x30  // '0'
        case hardLink = 0x31
        case symbolicLink = 0x32
        case characterDevice = 0x33
        case blockDevice = 0x34
        case folder = 0x35
        case fifo = 0x36
    }

    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Appends one member; a name or link target too long for the ustar header goes in a pax header before it.
    public mutating func add(
        _ name: String, kind: Kind = .file, contents: [UInt8] = [], mode: Int = 0o644, linkTarget: String = "",
        owner: Int = 0, group: Int = 0
    ) {
        add(
            nameBytes: Array(name.utf8), kind: kind, contents: contents, mode: mode, linkTarget: Array(linkTarget.utf8),
            owner: owner, group: group)
    }

    public mutating func add(
        nameBytes: [UInt8], kind: Kind = .file, contents: [UInt8] = [], mode: Int = 0o644, linkTarget: [UInt8] = [],
        owner: Int = 0, group: Int = 0
    ) {
        var records: [(String, [UInt8])] = []
        if nameBytes.count > 99 { records.append(("path", nameBytes)) }
        if linkTarget.count > 99 { records.append(("linkpath", linkTarget)) }
        if !records.isEmpty {
            var pax: [UInt8] = []
            for (key, value) in records { pax += Self.paxRecord(key, value) }
            append(header(name: Array("PaxHeader/x".utf8), kind: 0x78, size: pax.count, mode: 0o644, link: [], 0, 0))
            appendData(pax)
        }
        let size = kind == .file ? contents.count : 0
        append(
            header(
                name: Array(nameBytes.prefix(99)), kind: kind.rawValue, size: size, mode: mode,
                link: Array(linkTarget.prefix(99)), owner, group))
        if kind == .file { appendData(contents) }
    }

    /// The two zero blocks that end an archive.
    public mutating func finish() {
        bytes += [UInt8](repeating: 0, count: 1_024)
    }

    public var data: Data { Data(bytes) }

    private mutating func append(_ block: [UInt8]) { bytes += block }

    private mutating func appendData(_ data: [UInt8]) {
        bytes += data
        let padding = (512 - data.count % 512) % 512
        bytes += [UInt8](repeating: 0, count: padding)
    }

    private func header(
        name: [UInt8], kind: UInt8, size: Int, mode: Int, link: [UInt8], _ owner: Int, _ group: Int
    ) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ value: [UInt8], at offset: Int, width: Int) {
            for (index, byte) in value.prefix(width).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int, width: Int) -> [UInt8] {
            let text = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - text.count)) + text).utf8) + [0]
        }
        put(name, at: 0, width: 100)
        put(octal(mode, width: 8), at: 100, width: 8)
        put(octal(owner, width: 8), at: 108, width: 8)
        put(octal(group, width: 8), at: 116, width: 8)
        put(octal(size, width: 12), at: 124, width: 12)
        put(octal(1_700_000_000, width: 12), at: 136, width: 12)
        put([UInt8](repeating: 0x20, count: 8), at: 148, width: 8)
        block[156] = kind
        put(link, at: 157, width: 100)
        put(Array("ustar".utf8) + [0], at: 257, width: 6)
        put(Array("00".utf8), at: 263, width: 2)
        let sum = block.reduce(0) { $0 + Int($1) }
        put(octal(sum, width: 7) + [0x20], at: 148, width: 8)
        return block
    }

    private static func paxRecord(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let body = Array(" \(key)=".utf8) + value + [0x0A]
        var length = body.count + 1
        while String(length).count + body.count != length { length = String(length).count + body.count }
        return Array(String(length).utf8) + body
    }
}

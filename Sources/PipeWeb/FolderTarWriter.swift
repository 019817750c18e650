import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a folder (a `.xcresult` bundle) as a POSIX tar archive, piece by piece, so a bundle of any size is sent
/// with flat memory. Only folders and regular files go in, found with `lstat`: links inside are left out, never
/// followed. Names longer than ustar allows get a pax header; bsdtar (macOS's Archive Utility) and GNU tar read both.
struct FolderTarWriter {
    static let block = 512

    /// Writes the archive of `folder`, named `name/…` inside, through `write`; stops when `write` returns false.
    static func write(_ folder: URL, as name: String, to write: ([UInt8]) -> Bool) {
        guard entry(name + "/", size: 0, isFolder: true, write: write) else { return }
        guard walk(folder, prefix: name + "/", depth: 0, write: write) else { return }
        _ = write([UInt8](repeating: 0, count: block * 2))
    }

    private static func walk(_ folder: URL, prefix: String, depth: Int, write: ([UInt8]) -> Bool) -> Bool {
        guard depth < 64, let directory = opendir(folder.path) else { return true }
        var names: [String] = []
        while let item = readdir(directory) {
            let name = withUnsafePointer(to: item.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        closedir(directory)
        for name in names.sorted() {
            let url = folder.appendingPathComponent(name)
            var info = stat()
            guard lstat(url.path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                guard entry(prefix + name + "/", size: 0, isFolder: true, write: write) else { return false }
                guard walk(url, prefix: prefix + name + "/", depth: depth + 1, write: write) else { return false }
            case S_IFREG:
                guard file(url, name: prefix + name, write: write) else { return false }
            default:
                continue
            }
        }
        return true
    }

    private static func file(_ url: URL, name: String, write: ([UInt8]) -> Bool) -> Bool {
        guard let descriptor = ArtifactFile.open(url) else { return true }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return true }
        let size = Int64(info.st_size)
        guard entry(name, size: size, isFolder: false, write: write) else { return false }
        var remaining = size
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while remaining > 0 {
            let wanted = Int(min(Int64(buffer.count), remaining))
            let read = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            // A file that shrank while being read is padded, so the archive stays well-formed.
            let piece = read > 0 ? Array(buffer.prefix(read)) : [UInt8](repeating: 0, count: wanted)
            guard write(piece) else { return false }
            remaining -= Int64(piece.count)
        }
        let padding = (block - Int(size % Int64(block))) % block
        return padding == 0 || write([UInt8](repeating: 0, count: padding))
    }

    private static func entry(_ name: String, size: Int64, isFolder: Bool, write: ([UInt8]) -> Bool) -> Bool {
        var short = name
        if name.utf8.count > 99 {
            let record = paxRecord("path", name)
            guard write(header("PaxHeader", size: Int64(record.count), type: UInt8(ascii: "x"))) else { return false }
            guard write(record + [UInt8](repeating: 0, count: (block - record.count % block) % block)) else {
                return false
            }
            short = String(decoding: Array(name.utf8.suffix(90)), as: UTF8.self)
        }
        return write(header(short, size: size, type: isFolder ? UInt8(ascii: "5") : UInt8(ascii: "0")))
    }

    /// `"<length> path=<value>\n"`, where the length counts itself.
    static func paxRecord(_ key: String, _ value: String) -> [UInt8] {
        let body = " \(key)=\(value)\n"
        var length = body.utf8.count + 1
        while "\(length)".utf8.count + body.utf8.count != length { length += 1 }
        return Array("\(length)\(body)".utf8)
    }

    static func header(_ name: String, size: Int64, type: UInt8) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: Self.block)
        func put(_ bytes: [UInt8], at offset: Int, width: Int) {
            for (index, byte) in bytes.prefix(width).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int64, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(Array(name.utf8), at: 0, width: 100)
        put(octal(type == UInt8(ascii: "5") ? 0o755 : 0o644, width: 8), at: 100, width: 8)
        put(octal(0, width: 8), at: 108, width: 8)
        put(octal(0, width: 8), at: 116, width: 8)
        put(octal(size, width: 12), at: 124, width: 12)
        put(octal(Int64(Date().timeIntervalSince1970), width: 12), at: 136, width: 12)
        put(Array("        ".utf8), at: 148, width: 8)
        block[156] = type
        put(Array("ustar\u{0}00".utf8), at: 257, width: 8)
        let sum = block.reduce(0) { $0 + Int64($1) }
        put(octal(sum, width: 7) + [UInt8(ascii: " ")], at: 148, width: 8)
        return block
    }
}

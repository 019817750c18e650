import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tar archive a workspace sync sends, produced piece by piece as the channel takes it: each entry to write into
/// the host's cached tree (named `tree/<path>`), then one last file (the new manifest), so memory stays flat — at
/// most one small file, or a MiB of a big one, is held at a time.
///
/// Written here rather than by a local `tar`: only the changed entries go, under a prefix, followed by a file that is
/// not in the workspace, and each file is digested as it is read (once). The format is POSIX ustar with pax
/// extended headers for long names and big sizes, which bsdtar (macOS) and GNU tar both read.
final class WorkspaceTarStream {
    static let treePrefix = "tree/"
    private static let block = 512
    private static let record = 10_240

    private let root: String
    /// The entries sent, in path order; file digests filled in as they are read when not known before.
    private(set) var entries: [WorkspaceManifest.Entry]
    private let lastFile: (name: String, contents: ([WorkspaceManifest.Entry]) -> [UInt8])
    private let reader = WorkspaceFileReader()
    private var next = 0
    private var pending = [UInt8]()
    private var pendingOffset = 0
    private var bigFile: BigFile?
    private var wroteLastFile = false
    private(set) var isFinished = false
    /// Bytes of archive produced so far.
    private(set) var byteCount: Int64 = 0

    private struct BigFile {
        var descriptor: Int32
        var index: Int
        var remaining: Int64
        var digest: SHA256Digest
    }

    /// - Parameters:
    ///   - entries: what to send, sorted by path; a file whose digest is known is checked against it as it is read.
    ///   - lastFile: its name in the archive, and its contents, made from the sent entries once all were read.
    init(
        root: URL, entries: [WorkspaceManifest.Entry],
        lastFile: (name: String, contents: ([WorkspaceManifest.Entry]) -> [UInt8])
    ) {
        self.root = root.path
        self.entries = entries
        self.lastFile = lastFile
    }

    deinit {
        if let bigFile { close(bigFile.descriptor) }
    }

    /// Fills `buffer` with the next bytes of the archive; returns how many (0 once it has all been produced).
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var written = 0
        while written < buffer.count {
            if pendingOffset < pending.count {
                let count = min(pending.count - pendingOffset, buffer.count - written)
                pending.withUnsafeBytes { source in
                    (buffer.baseAddress! + written).copyMemory(
                        from: source.baseAddress! + pendingOffset, byteCount: count)
                }
                pendingOffset += count
                written += count
                continue
            }
            pending.removeAll(keepingCapacity: true)
            pendingOffset = 0
            if bigFile != nil {
                written += try readBigFile(into: UnsafeMutableRawBufferPointer(rebasing: buffer[written...]))
                continue
            }
            if isFinished { break }
            try produceNext()
        }
        return written
    }

    private func produceNext() throws {
        guard next < entries.count else {
            if !wroteLastFile {
                wroteLastFile = true
                let contents = lastFile.contents(entries)
                appendHeader(
                    name: lastFile.name, type: "0", mode: 0o644, size: Int64(contents.count),
                    mtime: Int(Date().timeIntervalSince1970))
                appendPending(contents)
                appendPadding(for: Int64(contents.count))
                return
            }
            // End of archive: two zero blocks, then zeros up to a whole record as tar itself writes.
            var end = byteCount + Int64(2 * Self.block)
            end += (Int64(Self.record) - end % Int64(Self.record)) % Int64(Self.record)
            appendPending([UInt8](repeating: 0, count: Int(end - byteCount)))
            isFinished = true
            return
        }
        let index = next
        next += 1
        let entry = entries[index]
        let path = root + "/" + entry.path
        let name = Self.treePrefix + entry.path
        switch entry.kind {
        case .directory:
            appendHeader(name: name + "/", type: "5", mode: entry.mode, size: 0, mtime: try modificationTime(path))
        case .symlink:
            let target = try WorkspaceScanner.linkTarget(path)
            guard WorkspaceDigest.of(Array(target.utf8)) == entry.digest else {
                throw WorkspaceScanner.Failure(
                    message: "the symlink \(path) changed while the workspace was being sent; sync again")
            }
            appendHeader(
                name: name, type: "2", mode: 0o777, size: 0, mtime: try modificationTime(path), linkName: target)
        case .file:
            let descriptor = try reader.openForReading(path)
            var info = stat()
            fstat(descriptor, &info)
            let mtime = Int(info.st_mtim.tv_sec)
            if entry.size <= Int64(WorkspaceDigest.wholeFileLimit) {
                defer { close(descriptor) }
                let contents = try reader.contents(of: descriptor, path: path, expectedSize: entry.size)
                try settle(index, digest: WorkspaceDigest.of(contents), path: path)
                appendHeader(name: name, type: "0", mode: entry.mode, size: entry.size, mtime: mtime)
                appendPending(contents)
                appendPadding(for: entry.size)
            } else {
                appendHeader(name: name, type: "0", mode: entry.mode, size: entry.size, mtime: mtime)
                bigFile = BigFile(descriptor: descriptor, index: index, remaining: entry.size, digest: SHA256Digest())
            }
        }
    }

    private func readBigFile(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard var file = bigFile else { return 0 }
        let path = root + "/" + entries[file.index].path
        let wanted = Int(min(Int64(buffer.count), file.remaining))
        var count = 0
        if wanted > 0 {
            count = systemRead(file.descriptor, buffer.baseAddress, wanted)
            if count < 0 && errno == EINTR { return 0 }
            guard count > 0 else {
                throw WorkspaceScanner.Failure(
                    message: "\(path) changed while the workspace was being sent (it ended early); sync again")
            }
            file.digest.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            file.remaining -= Int64(count)
            byteCount += Int64(count)
        }
        bigFile = file
        if file.remaining == 0 {
            close(file.descriptor)
            bigFile = nil
            try settle(file.index, digest: file.digest.finalizeHex(), path: path)
            appendPadding(for: entries[file.index].size)
        }
        return count
    }

    /// Records a file's digest as read, or checks it against the one it was listed with.
    private func settle(_ index: Int, digest: String, path: String) throws {
        if entries[index].digest.isEmpty {
            entries[index].digest = digest
        } else if entries[index].digest != digest {
            throw WorkspaceScanner.Failure(
                message: "\(path) changed while the workspace was being sent; sync again once nothing writes to it")
        }
    }

    private func modificationTime(_ path: String) throws -> Int {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw WorkspaceScanner.Failure(message: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return Int(info.st_mtim.tv_sec)
    }

    private func appendPending(_ bytes: [UInt8]) {
        pending.append(contentsOf: bytes)
        byteCount += Int64(bytes.count)
    }

    private func appendPadding(for size: Int64) {
        let remainder = Int(size % Int64(Self.block))
        if remainder > 0 { appendPending([UInt8](repeating: 0, count: Self.block - remainder)) }
    }

    // MARK: - Headers

    /// A ustar header, preceded by a pax extended header when the name or link target does not fit its fields or
    /// the size does not fit 11 octal digits.
    private func appendHeader(
        name: String, type: Character, mode: UInt32, size: Int64, mtime: Int, linkName: String = ""
    ) {
        let nameBytes = Array(name.utf8)
        let linkBytes = Array(linkName.utf8)
        var records = [UInt8]()
        if nameBytes.count > 100 { records += Self.paxRecord("path", nameBytes) }
        if linkBytes.count > 100 { records += Self.paxRecord("linkpath", linkBytes) }
        if size > 0o77777777777 { records += Self.paxRecord("size", Array(String(size).utf8)) }
        if !records.isEmpty {
            appendPending(
                Self.ustarHeader(
                    name: Array("././@PaxHeader".utf8), type: "x", mode: 0o644, size: Int64(records.count),
                    mtime: mtime, linkName: []))
            appendPending(records)
            appendPadding(for: Int64(records.count))
        }
        appendPending(
            Self.ustarHeader(
                name: Array(nameBytes.prefix(100)), type: type, mode: mode, size: size > 0o77777777777 ? 0 : size,
                mtime: mtime, linkName: Array(linkBytes.prefix(100))))
    }

    /// `"<length> <key>=<value>\n"`, the length counting its own digits.
    static func paxRecord(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let body = key.utf8.count + value.count + 3
        var length = body + String(body).count
        if String(length).count != String(body).count { length = body + String(length).count }
        return Array("\(length) \(key)=".utf8) + value + [0x0a]
    }

    static func ustarHeader(
        name: [UInt8], type: Character, mode: UInt32, size: Int64, mtime: Int, linkName: [UInt8]
    ) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: block)
        func put(_ bytes: [UInt8], at offset: Int) {
            for (index, byte) in bytes.enumerated() { header[offset + index] = byte }
        }
        func octal(_ value: Int64, width: Int, at offset: Int) {
            let digits = String(value, radix: 8)
            put(Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8), at: offset)
        }
        put(name, at: 0)
        octal(Int64(mode), width: 8, at: 100)
        octal(0, width: 8, at: 108)
        octal(0, width: 8, at: 116)
        octal(size, width: 12, at: 124)
        octal(Int64(max(0, mtime)), width: 12, at: 136)
        put(Array(repeating: 0x20, count: 8), at: 148)
        header[156] = type.asciiValue ?? 0x30
        put(linkName, at: 157)
        put(Array("ustar\u{0}00".utf8), at: 257)
        let checksum = header.reduce(0) { $0 + Int($1) }
        let digits = String(checksum, radix: 8)
        put(Array((String(repeating: "0", count: max(0, 6 - digits.count)) + digits).utf8) + [0, 0x20], at: 148)
        return header
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

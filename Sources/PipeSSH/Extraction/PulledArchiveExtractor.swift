import CArchive
import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Extracts a tar stream that came back from a host into a staging folder, in this process: libarchive reads the
/// stream (tar formats only, no filters), and `ExtractionFolder` writes what it allows. Only regular files, folders
/// and links are made; modes are 0644 or 0755 through the umask; owners, xattrs and macOS `._` metadata are dropped.
/// Device nodes, FIFOs, sockets, names outside the item and anything written through a link are refused.
///
/// A local `tar` was the other way: it honours no rule about links made by an earlier archive into the same folder
/// (the other half of a split pull-back), and its refusals come back as text, not as a member and a reason.
///
/// The stream arrives as it does for a process: through `write` on one end of a socket pair, from the SSH loop; a
/// thread of its own reads the other end, since libarchive blocks.
final class PulledArchiveExtractor: @unchecked Sendable {
    /// Our end of the socket pair: archive bytes go into it.
    let descriptor: Int32
    private let readerEnd: Int32
    private let item: [UInt8]
    private let maximumBytes: Int64
    private let done = DispatchSemaphore(value: 0)
    private var finished = false
    private var descriptorOpen = true

    // Written by the extraction thread before `done` is signalled; read only after waiting on it.
    private var refusal: String?
    private var localFailure: String?
    private var links: [ArchiveMemberName] = []
    private var writtenBytes: Int64 = 0

    /// What the extraction came to.
    enum Ending {
        case extracted(links: [ArchiveMemberName], bytes: Int64)
        /// The archive holds what Pipe never extracts: the host's doing.
        case refused(String)
        /// The coordinator could not write what was allowed (its disk, its permissions).
        case failed(String)
    }

    /// Starts extracting into `staging`, accepting only members under `item` and at most `maximumBytes` of data.
    init(into staging: URL, item: String, maximumBytes: Int64) throws {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw LocalTarFailure(message: "cannot create a socket pair: \(String(cString: strerror(errno)))")
        }
        descriptor = ends[0]
        readerEnd = ends[1]
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        self.item = Array(item.utf8)
        self.maximumBytes = maximumBytes
        let thread = Thread { [self] in
            // The folder's descriptors close here, before `done`: nothing of an extraction outlives `finish`.
            do {
                extract(into: try ExtractionFolder(staging))
            } catch {
                localFailure = "\(error)"
            }
            _ = close(readerEnd)
            done.signal()
        }
        thread.name = "pipe-extract"
        thread.start()
    }

    deinit {
        abandon()
    }

    /// Writes what the extraction takes now; 0 when it is busy. Throws once it has stopped reading (it ended or
    /// refused the archive): the rest of the stream is then only counted and digested by the caller.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard !bytes.isEmpty else { return 0 }
        let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return count }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
        throw LocalTarFailure(message: "the extraction stopped reading: \(String(cString: strerror(errno)))")
    }

    /// Ends the stream and waits (at most `seconds`) for the extraction to finish.
    func finish(waitingAtMost seconds: Double) -> Ending {
        closeDescriptor()
        guard waitForThread(seconds: seconds) else {
            return .failed("the extraction did not finish within \(Int(seconds)) s")
        }
        if let refusal { return .refused(refusal) }
        if let localFailure { return .failed(localFailure) }
        return .extracted(links: links, bytes: writtenBytes)
    }

    /// Stops the extraction and waits for it, so it writes nothing after its folder is removed.
    func abandon() {
        closeDescriptor()
        _ = waitForThread(seconds: 30)
    }

    private func closeDescriptor() {
        guard descriptorOpen else { return }
        descriptorOpen = false
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        _ = close(descriptor)
    }

    private func waitForThread(seconds: Double) -> Bool {
        if finished { return true }
        guard done.wait(timeout: .now() + seconds) == .success else { return false }
        finished = true
        return true
    }

    // MARK: - The extraction thread

    private func extract(into folder: ExtractionFolder) {
        guard let archive = archive_read_new() else {
            localFailure = "libarchive could not start"
            return
        }
        defer { archive_read_free(archive) }
        archive_read_support_format_tar(archive)
        guard archive_read_open_fd(archive, readerEnd, 64 * 1024) == ARCHIVE_OK else {
            refusal = "it is not a tar archive (\(Self.message(of: archive)))"
            return
        }
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { return }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                refusal = "it is not a readable tar archive (\(Self.message(of: archive)))"
                return
            }
            do {
                try extractMember(entry, of: archive, into: folder)
            } catch let refused as ExtractionFolder.Refusal {
                refusal = refused.reason
                return
            } catch let failure as ExtractionFolder.LocalFailure {
                localFailure = failure.message
                return
            } catch {
                localFailure = "\(error)"
                return
            }
        }
    }

    private func extractMember(_ entry: OpaquePointer, of archive: OpaquePointer, into folder: ExtractionFolder) throws
    {
        let rawName = archive_entry_pathname(entry).map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) }
        let nameBytes = rawName?.map { UInt8(bitPattern: $0) } ?? []
        let name: ArchiveMemberName
        do {
            name = try ArchiveMemberName(bytes: nameBytes, item: item)
        } catch .empty where UInt32(archive_entry_filetype(entry)) & pipe_archive_type_mask == pipe_archive_type_folder
        {
            return  // `./`: the staging folder itself
        } catch {
            throw ExtractionFolder.Refusal(
                reason: "it holds a member with \(error.reason): `\(DisplayEscaping.escaped(bytes: nameBytes))`")
        }
        if let hardlink = archive_entry_hardlink(entry) {
            let target = Array(UnsafeBufferPointer(start: hardlink, count: strlen(hardlink))).map {
                UInt8(bitPattern: $0)
            }
            try copyHardLink(name, target: target, entry: entry, archive: archive, into: folder)
            return
        }
        let type = UInt32(archive_entry_filetype(entry)) & pipe_archive_type_mask
        switch type {
        case pipe_archive_type_folder:
            try folder.makeFolder(name)
        case pipe_archive_type_link:
            let target =
                archive_entry_symlink(entry).map {
                    Array(UnsafeBufferPointer(start: $0, count: strlen($0))).map { UInt8(bitPattern: $0) }
                } ?? []
            guard !target.isEmpty, target[0] != UInt8(ascii: "/") else {
                throw ExtractionFolder.Refusal(
                    reason: "it holds a link `\(name.display)` to an absolute or empty path "
                        + "`\(DisplayEscaping.escaped(bytes: target))`")
            }
            guard target.count <= ArchiveMemberName.maximumNameBytes else {
                throw ExtractionFolder.Refusal(reason: "it holds a link `\(name.display)` with a target too long")
            }
            try folder.makeLink(name, target: target)
            links.append(name)
        case pipe_archive_type_file:
            var first = try readBlock(of: archive, name: name)
            if name.isAppleDoubleName, let block = first, block.offset == 0,
                block.bytes.starts(with: [0x00, 0x05, 0x16, 0x07] as [UInt8])
            {
                return  // the rest of its data is skipped by the next header
            }
            let executable = archive_entry_perm(entry) & 0o111 != 0
            let file = try folder.createFile(name, executable: executable)
            defer { _ = close(file) }
            while let block = first {
                try account(Int64(block.bytes.count), name: name)
                try writeAll(block.bytes, to: file, at: block.offset, name: name)
                first = try readBlock(of: archive, name: name)
            }
        default:
            throw ExtractionFolder.Refusal(reason: "it holds \(Self.typeName(type)) `\(name.display)`")
        }
    }

    /// The next block of the current member's data, `nil` at its end. The bytes stay valid until the next read.
    private func readBlock(of archive: OpaquePointer, name: ArchiveMemberName) throws -> (
        bytes: UnsafeRawBufferPointer, offset: Int64
    )? {
        var block: UnsafeRawPointer?
        var size = 0
        var offset: Int64 = 0
        while true {
            let status = archive_read_data_block(archive, &block, &size, &offset)
            if status == ARCHIVE_EOF { return nil }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN else {
                throw ExtractionFolder.Refusal(
                    reason: "`\(name.display)` could not be read from the archive (\(Self.message(of: archive)))")
            }
            if let block, size > 0 { return (UnsafeRawBufferPointer(start: block, count: size), offset) }
        }
    }

    /// A hard link is made as a copy of its target, which must be a file of the same item that arrived before it.
    private func copyHardLink(
        _ name: ArchiveMemberName, target: [UInt8], entry: OpaquePointer, archive: OpaquePointer,
        into folder: ExtractionFolder
    ) throws {
        let targetName: ArchiveMemberName
        do {
            targetName = try ArchiveMemberName(bytes: target, item: item)
        } catch {
            throw ExtractionFolder.Refusal(
                reason: "it holds a hard link `\(name.display)` to \(error.reason): "
                    + "`\(DisplayEscaping.escaped(bytes: target))`")
        }
        let source = try folder.openFileForReading(targetName)
        defer { _ = close(source) }
        let executable = archive_entry_perm(entry) & 0o111 != 0
        let file = try folder.createFile(name, executable: executable)
        defer { _ = close(file) }
        if archive_entry_size_is_set(entry) != 0 && archive_entry_size(entry) > 0 {
            while let block = try readBlock(of: archive, name: name) {
                try account(Int64(block.bytes.count), name: name)
                try writeAll(block.bytes, to: file, at: block.offset, name: name)
            }
            return
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            try account(Int64(count), name: name)
            try buffer.withUnsafeBytes {
                try writeAll(UnsafeRawBufferPointer(rebasing: $0[0..<count]), to: file, at: offset, name: name)
            }
            offset += Int64(count)
        }
    }

    private func account(_ count: Int64, name: ArchiveMemberName) throws {
        writtenBytes += count
        guard writtenBytes <= maximumBytes else {
            throw ExtractionFolder.Refusal(
                reason:
                    "it holds more than \(maximumBytes) bytes, the most this pull-back may bring (at `\(name.display)`)"
            )
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, to file: Int32, at offset: Int64, name: ArchiveMemberName)
        throws
    {
        var written = 0
        while written < bytes.count {
            let count = pwrite(
                file, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw ExtractionFolder.LocalFailure(
                    message: "cannot write `\(name.display)`: \(String(cString: strerror(errno)))")
            }
            written += count
        }
    }

    private static func typeName(_ type: UInt32) -> String {
        switch type {
        case pipe_archive_type_character_device, pipe_archive_type_block_device: return "a device node"
        case pipe_archive_type_fifo: return "a FIFO"
        case pipe_archive_type_socket: return "a socket"
        default: return "a member of unknown type \(String(type, radix: 8))"
        }
    }

    private static func message(of archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "no message"
    }
}

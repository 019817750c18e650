import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads workspace files for digests and for the tar stream, checking that each is still the size it was listed
/// with: a workspace that changes while it is being sent is an error, never a silently mixed copy.
struct WorkspaceFileReader {
    /// The whole content of a file of at most `WorkspaceDigest.wholeFileLimit` bytes.
    func contents(ofFileAt path: String, expectedSize: Int64) throws -> [UInt8] {
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        return try contents(of: descriptor, path: path, expectedSize: expectedSize)
    }

    /// The whole content of an open file, `path` naming it in errors.
    func contents(of descriptor: Int32, path: String, expectedSize: Int64) throws -> [UInt8] {
        let size = Int(expectedSize)
        let bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
            count = 0
            while count <= size {
                let read = systemRead(descriptor, buffer.baseAddress! + count, size + 1 - count)
                if read < 0 && errno == EINTR { continue }
                if read <= 0 { break }
                count += read
            }
        }
        guard bytes.count == size else {
            throw WorkspaceScanner.Failure(
                message: "\(path) changed while the workspace was being sent (\(expectedSize) bytes when listed, "
                    + "\(bytes.count > size ? "more" : "\(bytes.count)") now); sync again once nothing writes to it")
        }
        return bytes
    }

    /// The file's `WorkspaceDigest`.
    func digest(ofFileAt path: String, expectedSize: Int64) throws -> String {
        if expectedSize <= Int64(WorkspaceDigest.wholeFileLimit) {
            return WorkspaceDigest.of(try contents(ofFileAt: path, expectedSize: expectedSize))
        }
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        let digest = SHA256Digest()
        var total: Int64 = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let read = chunk.withUnsafeMutableBytes { bytes -> Int in
                systemRead(descriptor, bytes.baseAddress, bytes.count)
            }
            if read < 0 && errno == EINTR { continue }
            if read < 0 { throw failure("cannot read", path) }
            if read == 0 { break }
            total += Int64(read)
            chunk.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<read])) }
        }
        guard total == expectedSize else {
            throw WorkspaceScanner.Failure(
                message: "\(path) changed while the workspace was being sent (\(expectedSize) bytes when listed, "
                    + "\(total) now); sync again once nothing writes to it")
        }
        return digest.finalizeHex()
    }

    func openForReading(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw failure("cannot open", path) }
        return descriptor
    }

    private func failure(_ action: String, _ path: String) -> WorkspaceScanner.Failure {
        WorkspaceScanner.Failure(message: "\(action) \(path): \(String(cString: strerror(errno)))")
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

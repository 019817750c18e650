import Foundation
import PipeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a file beside a mirror, held while the mirror is fetched and read.
///
/// `flock` locks belong to an open file description, so two threads of one process exclude each other as two
/// processes do; the kernel drops the lock if the process dies, so a crash never leaves the mirror locked.
final class MirrorLock {
    private let descriptor: Int32

    /// Waits for the lock, polling every 50 ms so a cancellation is noticed while another run holds it.
    init(path: String, repository: String, cancellation: CancellationToken?) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw GitError.fileSystem(
                operation: "open the mirror lock", path: path, message: String(cString: strerror(errno)))
        }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                close(descriptor)
                throw GitError.fileSystem(
                    operation: "lock the mirror", path: path, message: String(cString: strerror(failure)))
            }
            if let reason = cancellation?.cancellationReason {
                close(descriptor)
                throw GitError.cancelled(repository: repository, reason: reason)
            }
            usleep(50_000)
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where an `HTTPServer` listens.
public enum HTTPListener: Sendable, Equatable {
    /// An IPv4 or IPv6 literal and a port (0: any free port).
    case tcp(address: String, port: UInt16)
    /// A Unix socket file: only processes that may open the file can connect (the reverse proxy).
    case unixSocket(path: String)
}

/// Creating the listening Unix socket that libmicrohttpd then accepts on.
enum UnixSocketListener {
    /// Binds and listens at `path`, readable and writable by the owner and group only. A socket file already there
    /// that nothing listens on (left by a server that stopped without cleaning up) is replaced; one in use, or any
    /// other file, is left alone and refused.
    static func listen(at path: String) throws -> Int32 {
        var address = try socketAddress(path)
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw HTTPServerError(
                    "\(path) exists and is not a socket; remove it or choose another unix-socket path")
            }
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let inUse = call(connect, probe, &address) == 0
            close(probe)
            guard !inUse else {
                throw HTTPServerError("another process listens on \(path); stop it or choose another unix-socket path")
            }
            unlink(path)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw HTTPServerError("could not create a Unix socket: \(String(cString: strerror(errno)))")
        }
        guard call(bind, descriptor, &address) == 0, chmod(path, 0o660) == 0, Glibc.listen(descriptor, 128) == 0
        else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw HTTPServerError(
                "could not listen on the Unix socket \(path): \(reason); check that its folder exists and is writable")
        }
        return descriptor
    }

    /// `path` as a socket address, when it fits.
    static func socketAddress(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
            throw HTTPServerError(
                "the Unix socket path \(path) is \(bytes.count) bytes; it must be 1 to \(capacity - 1) (choose a "
                    + "shorter path)")
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }

    /// `bind` or `connect` on a Unix socket address.
    static func call(
        _ function: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32, _ descriptor: Int32,
        _ address: inout sockaddr_un
    ) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                function(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}

import CBatchedAESCTR
import CSSH2
import PipeCore

/// libssh2's process-wide setup, done once before the first session.
///
/// `SSHSession.connect` calls it; calling it directly is only needed to fail early.
public enum SSHLibrary {
    /// `libssh2_init`'s result; a lazily initialised static is run exactly once, even from several threads. The
    /// batched AES-CTR goes in first, so every session's cipher is made with it.
    private static let initResult: Int32 = {
        _ = pipe_batched_aes_ctr_install()
        return libssh2_init(0)
    }()

    /// Whether sessions encrypt with Pipe's batched AES-CTR (`CBatchedAESCTR`) rather than OpenSSL's own, which
    /// libssh2 1.10 calls once per 16 bytes: about 1.3–1.5× the bytes per second of CPU a channel moves. `false`
    /// only where OpenSSL refuses engines; the bytes on the wire are the same either way.
    public static var batchedCipherInstalled: Bool { pipe_batched_aes_ctr_installed() == 1 }

    /// Initialises libssh2 once per process; later calls only report the first result. Thread-safe.
    public static func initialize() throws {
        guard initResult == 0 else {
            throw RemoteError(
                .unreachable, host: "-",
                "libssh2 could not be initialised (libssh2_init returned \(initResult)); check the libssh2-1 package")
        }
    }

    /// The libssh2 version in use, e.g. `1.10.0`.
    public static var version: String {
        guard let text = libssh2_version(0) else { return "unknown" }
        return String(cString: text)
    }
}

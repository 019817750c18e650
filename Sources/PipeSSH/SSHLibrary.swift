import CSSH2
import PipeCore

/// libssh2's process-wide setup, done once before the first session.
///
/// `SSHSession.connect` calls it; calling it directly is only needed to fail early.
public enum SSHLibrary {
    /// `libssh2_init`'s result; a lazily initialised static is run exactly once, even from several threads.
    private static let initResult: Int32 = libssh2_init(0)

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

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An audit log in a file: one JSON object per line, appended with one `write` each, so lines from several
/// threads never interleave. When a line would take the file past `maxBytes`, the file becomes `<name>.1`
/// (replacing the one before) and a new one is begun, so the log takes at most twice `maxBytes` on disk.
public final class JSONLinesAuditLog: ChatAuditLog, @unchecked Sendable {
    public let url: URL
    public let maxBytes: Int
    private var descriptor: Int32
    private var size: Int
    private let lock = NSLock()
    private let encoder: JSONEncoder

    /// The file the log is moved to when it is full.
    public var rotatedURL: URL { URL(fileURLWithPath: url.path + ".1") }

    /// Opens (creating) the file for appending; its folder is created if needed.
    public init(url: URL, maxBytes: Int = ChatOpsLimits().auditLogBytes) throws {
        self.url = url
        self.maxBytes = maxBytes
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        (descriptor, size) = try Self.open(url)
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
    }

    deinit { close(descriptor) }

    private static func open(_ url: URL) throws -> (Int32, Int) {
        let descriptor = Glibc.open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw ChatOpsError(
                "cannot open the audit log \(url.path): \(String(cString: strerror(errno))); check the folder's "
                    + "permissions or set chatops.audit-log")
        }
        var info = stat()
        return (descriptor, fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0)
    }

    public func record(_ entry: ChatAuditEntry) throws {
        var line = try encoder.encode(entry)
        line.append(UInt8(ascii: "\n"))
        lock.lock()
        defer { lock.unlock() }
        if size > 0, size + line.count > maxBytes { try rotate() }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw ChatOpsError("could not append to the audit log \(url.path): \(String(cString: strerror(errno)))")
        }
        size += line.count
    }

    private func rotate() throws {
        guard rename(url.path, rotatedURL.path) == 0 else {
            throw ChatOpsError(
                "could not move the full audit log \(url.path) to \(rotatedURL.lastPathComponent): "
                    + String(cString: strerror(errno)))
        }
        let (opened, length) = try Self.open(url)
        close(descriptor)
        (descriptor, size) = (opened, length)
    }

    /// Every entry of a log file (tests, and `pipe chatops` readers).
    public static func entries(at url: URL) throws -> [ChatAuditEntry] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { try decoder.decode(ChatAuditEntry.self, from: Data($0.utf8)) }
    }
}

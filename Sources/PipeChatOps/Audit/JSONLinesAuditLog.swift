import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An audit log in a file: one JSON object per line, appended with one `write` each, so lines from several
/// threads (or processes) never interleave.
public final class JSONLinesAuditLog: ChatAuditLog, @unchecked Sendable {
    public let url: URL
    private let descriptor: Int32
    private let lock = NSLock()
    private let encoder: JSONEncoder

    /// Opens (creating) the file for appending; its folder is created if needed.
    public init(url: URL) throws {
        self.url = url
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        descriptor = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ChatOpsError(
                "cannot open the audit log \(url.path): \(String(cString: strerror(errno))); check the folder's "
                    + "permissions or set chatops.audit-log")
        }
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
    }

    deinit { close(descriptor) }

    public func record(_ entry: ChatAuditEntry) throws {
        var line = try encoder.encode(entry)
        line.append(UInt8(ascii: "\n"))
        lock.lock()
        defer { lock.unlock() }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw ChatOpsError("could not append to the audit log \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Every entry of a log file (tests, and `pipe chatops` readers).
    public static func entries(at url: URL) throws -> [ChatAuditEntry] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { try decoder.decode(ChatAuditEntry.self, from: Data($0.utf8)) }
    }
}

import CPQ
import Foundation

/// Where a PostgreSQL run store lives, as the user named it (`--store postgres://…`, `PIPE_STORE`, `store:`), checked
/// before anything connects: a password in it is refused (a command line is visible in `/proc`, a config file is
/// shared), and what Pipe prints about it names only the host, port, database and user.
public struct PostgresTarget: Sendable, Equatable {
    /// What libpq is given, exactly as the user wrote it (it holds no password).
    public let connectionString: String
    /// `host … port … database … user …`, for messages.
    public let description: String

    /// Whether `text` names a PostgreSQL store rather than an SQLite file.
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Checks `text`, a `postgres://` or `postgresql://` URL (libpq's syntax, TLS options such as
    /// `sslmode=verify-full` included).
    public init(_ text: String) throws {
        guard Self.isPostgres(text) else {
            throw PostgresStoreError.badTarget(
                "'\(Self.masked(text))' is not a PostgreSQL URL: write postgres://user@host:port/database")
        }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &message) else {
            let reason = message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
            if let message { PQfreemem(message) }
            throw PostgresStoreError.badTarget(
                "the PostgreSQL URL \(Self.masked(text)) does not parse: \(reason ?? "libpq refused it")")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        let described = Self.describe(values)
        if let password = values["password"], !password.isEmpty {
            throw PostgresStoreError.badTarget(
                "the PostgreSQL URL for \(described) carries a password, which anyone on this machine can read from "
                    + "the command line or the config file; remove it from the URL and put it in ~/.pgpass "
                    + "(hostname:port:database:username:password, mode 0600), a passfile=… named in the URL, or "
                    + "PGPASSWORD")
        }
        connectionString = text
        description = described
    }

    /// `host … port … database … user …` from parsed options; the defaults libpq would use are named as such.
    static func describe(_ values: [String: String]) -> String {
        func value(_ key: String, _ fallback: String) -> String {
            guard let found = values[key], !found.isEmpty else { return fallback }
            return found
        }
        return "PostgreSQL database \(value("dbname", "(the user's name)")) on host "
            + "\(value("host", "(the default socket)")) port \(value("port", "5432")) as user "
            + value("user", "(this user)")
    }

    /// `text` with whatever sits between `://` and `@` after a colon hidden, for messages about text that did not
    /// parse.
    static func masked(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else {
            return text
        }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}

import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#endif

/// The users of the page's own sign-in: one line per user, `name:scrypt$…` (`PasswordHash`), written by
/// `pipe web users add|remove|passwd` with mode 0600 and replaced atomically, so a reader never sees half a file.
public struct WebUsersFile: Sendable, Equatable {
    public private(set) var hashes: [String: String]
    /// Names in file order, so an edit keeps the order people wrote.
    public private(set) var names: [String]

    public init() {
        hashes = [:]
        names = []
    }

    /// A user name: letters, digits and `.`, `_`, `-`, `@`, `+`, at most 64 of them (it appears in audit lines and
    /// in sign-offs).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                    || Array("._-@+".utf8).contains($0)
            }
    }

    /// Reads `url`; a missing file is no users. A bad line is reported with its number.
    public static func read(_ url: URL) throws(WebError) -> WebUsersFile {
        var file = WebUsersFile()
        guard FileManager.default.fileExists(atPath: url.path) else { return file }
        guard let data = FileManager.default.contents(atPath: url.path), data.count <= 4 * 1024 * 1024 else {
            throw WebError("\(url.path): cannot read the users file (or it is over 4 MiB); check its permissions")
        }
        for (index, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let parts = trimmed.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, isValidName(parts[0]), parts[1].hasPrefix("scrypt$") else {
                throw WebError(
                    "\(url.path):\(index + 1): expected `name:scrypt$…`; write users with `pipe web users add <name>`")
            }
            if file.hashes[parts[0]] == nil { file.names.append(parts[0]) }
            file.hashes[parts[0]] = parts[1]
        }
        return file
    }

    public mutating func set(_ name: String, hash: String) {
        if hashes[name] == nil { names.append(name) }
        hashes[name] = hash
    }

    public mutating func remove(_ name: String) {
        hashes[name] = nil
        names.removeAll { $0 == name }
    }

    /// Whether `password` is `name`'s. An unknown user costs a hash too, so the time taken does not tell who exists.
    public func verify(_ name: String, password: String) -> Bool {
        guard let hash = hashes[name] else {
            _ = PasswordHash.verify(password, against: Self.decoy)
            return false
        }
        return PasswordHash.verify(password, against: hash)
    }

    static let decoy = "scrypt$15$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

    /// Writes the file with mode 0600 through a temporary file and a rename.
    public func write(_ url: URL) throws(WebError) {
        var text = "# pipe web users: name:scrypt hash; edit with `pipe web users add|remove|passwd`\n"
        for name in names { if let hash = hashes[name] { text += "\(name):\(hash)\n" } }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw WebError("cannot write \(temporary.path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        fchmod(descriptor, 0o600)
        close(descriptor)
        guard written == bytes.count, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw WebError("cannot write \(url.path): \(String(cString: strerror(errno)))")
        }
    }
}

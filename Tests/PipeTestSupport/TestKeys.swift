import Foundation

/// Keys made by the `openssl` command line for tests of signatures, and running `openssl` on them: what Pipe
/// signs is checked by a tool that is not Pipe.
public enum TestKeys {
    /// An RSA key pair as PEM files in a folder of its own.
    public struct KeyPair: Sendable {
        public let folder: URL
        public var privateKey: URL { folder.appendingPathComponent("key.pem") }
        public var publicKey: URL { folder.appendingPathComponent("public.pem") }
        public var privatePEM: String { (try? String(contentsOf: privateKey, encoding: .utf8)) ?? "" }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cached: [String: KeyPair] = [:]

    /// A 2048-bit RSA key made once per test process (PKCS#8 PEM, as `openssl genpkey` writes it).
    public static func rsa2048() throws -> KeyPair {
        try made("rsa2048", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
    }

    /// A key made by `openssl <arguments> -out key.pem`, once per name, with its public half when `publicHalf`.
    public static func made(_ name: String, _ arguments: [String], publicHalf: Bool = true) throws -> KeyPair {
        lock.lock()
        defer { lock.unlock() }
        if let pair = cached[name] { return pair }
        let folder = try TemporaryDirectory(prefix: "pipe-keys-\(name)").url
        let pair = KeyPair(folder: folder)
        try openssl(arguments + ["-out", pair.privateKey.path])
        if publicHalf { try openssl(["pkey", "-in", pair.privateKey.path, "-pubout", "-out", pair.publicKey.path]) }
        cached[name] = pair
        return pair
    }

    /// Runs `openssl` and returns what it printed; throws with its stderr when it fails.
    @discardableResult
    public static func openssl(_ arguments: [String], stdin: Data? = nil) throws -> CommandResult {
        let result = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, stdin: stdin)
        guard result.exitCode == 0 else {
            throw NSError(
                domain: "openssl", code: Int(result.exitCode),
                userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.joined(separator: " ")): \(result.stderr)"])
        }
        return result
    }
}

import Foundation

/// The emulated `security`: keychains as small JSON files at the path given (`<name>.keychain-db`, as macOS
/// writes them), `-i` reading one command a line on stdin as the real one does, and every argv it saw appended to
/// `$HOME/Library/Logs/pipe-emulator/security-argv.log`, so a test can prove no password was on a command line.
/// `import` checks the `.p12` and its password for real with the `openssl` command (passed on its stdin).
struct Security {
    let context: EmulatorContext

    /// One keychain's state.
    struct Keychain: Codable {
        var passwordDigest: String
        var unlocked: Bool
        var settings: [String]
        var partitionList: String?
        /// SHA-1 (uppercase hex) and common name of each imported identity.
        var identities: [[String]]
    }

    func run(_ arguments: [String]) -> Int32 {
        logArgv(["security"] + arguments)
        if arguments.first == "-i" {
            var status: Int32 = 0
            while let line = Swift.readLine(strippingNewline: true) {
                let words = Self.words(line)
                guard !words.isEmpty else { continue }
                if words == ["quit"] || words == ["exit"] { break }
                status = command(words)
            }
            return status
        }
        let words = arguments.first == "-v" ? Array(arguments.dropFirst()) : arguments
        guard !words.isEmpty else {
            context.stderr.line("Usage: security [-h] [-i] [-l] [-p prompt] [-q] [-v] [command] [opt ...]")
            return 2
        }
        return command(words)
    }

    private func command(_ words: [String]) -> Int32 {
        let options = Options(Array(words.dropFirst()))
        switch words[0] {
        case "create-keychain":
            guard let path = options.last, let password = options["-p"] else { return usage("create-keychain") }
            let url = keychainURL(path)
            guard !FileManager.default.fileExists(atPath: url.path) else {
                context.stderr.line(
                    "security: SecKeychainCreate \(path): A keychain with the same name already exists.")
                return 48
            }
            return save(
                Keychain(passwordDigest: Self.digest(password), unlocked: true, settings: [], identities: []), url)
        case "set-keychain-settings":
            return change(options.last) { $0.settings = options.flags }
        case "unlock-keychain":
            return change(options.last) { keychain in
                guard Self.digest(options["-p"] ?? "") == keychain.passwordDigest else {
                    return
                        "security: SecKeychainUnlock \(options.last ?? ""): The user name or passphrase you entered is not correct."
                }
                keychain.unlocked = true
                return nil
            }
        case "import":
            return importIdentity(options)
        case "set-key-partition-list":
            return change(options.last) { keychain in
                guard Self.digest(options["-k"] ?? "") == keychain.passwordDigest else {
                    return
                        "security: SecKeychainItemSetAccessWithPassword: The user name or passphrase you entered is not correct."
                }
                keychain.partitionList = options["-S"]
                return nil
            }
        case "find-identity":
            let paths = options.last.map { [keychainURL($0)] } ?? []
            var identities: [[String]] = []
            for url in paths { identities += (load(url)?.identities ?? []) }
            for (index, identity) in identities.enumerated() {
                context.stdout.line(String(format: "%3d) ", index + 1) + "\(identity[0]) \"\(identity[1])\"")
            }
            context.stdout.line("     \(identities.count) valid identities found")
            return 0
        case "delete-keychain":
            guard let path = options.last else { return usage("delete-keychain") }
            let url = keychainURL(path)
            guard (try? FileManager.default.removeItem(at: url)) != nil else {
                context.stderr.line("security: SecKeychainDelete: The specified keychain could not be found.")
                return 50
            }
            KeychainSearchList(context: context).remove(url)
            return 0
        case "list-keychains":
            return KeychainSearchList(context: context).run(Array(words.dropFirst()))
        default:
            context.stderr.line("security: unknown command \"\(words[0])\"")
            return 2
        }
    }

    private func importIdentity(_ options: Options) -> Int32 {
        guard let file = options.positional.first, let path = options["-k"] else { return usage("import") }
        guard var keychain = load(keychainURL(path)) else { return missing(path) }
        guard keychain.unlocked else {
            context.stderr.line("security: SecKeychainItemImport: User interaction is not allowed.")
            return 1
        }
        let password = (options["-P"] ?? "") + "\n"
        let pem = openssl(
            ["pkcs12", "-in", context.absolutePath(file), "-nokeys", "-clcerts", "-passin", "stdin", "-legacy"],
            stdin: password)
        guard pem.status == 0, pem.output.contains("BEGIN CERTIFICATE") else {
            context.stderr.line(
                "security: SecKeychainItemImport: MAC verification failed during PKCS12 import (wrong password?)")
            return 1
        }
        let facts = openssl(
            ["x509", "-noout", "-fingerprint", "-sha1", "-subject", "-nameopt", "multiline"], stdin: pem.output)
        let lines = facts.output.split(separator: "\n").map(String.init)
        let sha1 = (lines.first?.split(separator: "=").last).map { $0.replacingOccurrences(of: ":", with: "") } ?? ""
        let name =
            lines.first { $0.contains("commonName") }?.split(separator: "=", maxSplits: 1).last
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        keychain.identities.append([sha1, name])
        guard save(keychain, keychainURL(path)) == 0 else { return 1 }
        context.stdout.line("1 identity imported.")
        return 0
    }

    private func openssl(_ arguments: [String], stdin: String) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return (127, "") }
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data.prefix(1 << 20), as: UTF8.self))
    }

    private func change(_ path: String?, _ body: (inout Keychain) -> String?) -> Int32 {
        guard let path else { return usage("keychain") }
        let url = keychainURL(path)
        guard var keychain = load(url) else { return missing(path) }
        if let problem = body(&keychain) {
            context.stderr.line(problem)
            return 51
        }
        return save(keychain, url)
    }

    private func change(_ path: String?, _ body: (inout Keychain) -> Void) -> Int32 {
        change(path) { (keychain: inout Keychain) -> String? in
            body(&keychain)
            return nil
        }
    }

    /// Where the keychain named `path` lives: a path as given (with `-db`), a bare name in `~/Library/Keychains`.
    func keychainURL(_ path: String) -> URL {
        let name = path.hasSuffix(".keychain-db") ? path : path + "-db"
        if name.contains("/") { return URL(fileURLWithPath: context.absolutePath(name)) }
        return URL(fileURLWithPath: context.absolutePath("~/Library/Keychains/\(name)"))
    }

    func load(_ url: URL) -> Keychain? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Keychain.self, from: data)
    }

    private func save(_ keychain: Keychain, _ url: URL) -> Int32 {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard let data = try? JSONEncoder().encode(keychain), (try? data.write(to: url)) != nil else {
            context.stderr.line("security: cannot write \(url.path)")
            return 1
        }
        return 0
    }

    private func missing(_ path: String) -> Int32 {
        context.stderr.line("security: SecKeychainOpen \(path): The specified keychain could not be found.")
        return 50
    }

    private func usage(_ command: String) -> Int32 {
        context.stderr.line("security: \(command): missing arguments")
        return 2
    }

    private func logArgv(_ argv: [String]) {
        let url = URL(fileURLWithPath: context.absolutePath("~/Library/Logs/pipe-emulator/security-argv.log"))
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let line = Data((argv.joined(separator: " ") + "\n").utf8)
        if let handle = try? FileHandle(forWritingTo: url) {
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: line)
            try? handle.close()
        } else {
            try? line.write(to: url)
        }
    }

    /// A keychain keeps only a digest of its password (the emulator's state is readable by tests).
    static func digest(_ password: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in password.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// `security -i`'s words: blanks separate them, single or double quotes group them.
    static func words(_ line: String) -> [String] {
        QuotedWords.split(line, backslashEscapes: false)
    }

    /// A command's options: `-x value` pairs for the options that take a value, flags, and positional words.
    struct Options {
        private static let valued: Set<String> = ["-p", "-k", "-P", "-T", "-S", "-f", "-t"]
        var values: [String: String] = [:]
        var flags: [String] = []
        var positional: [String] = []

        init(_ words: [String]) {
            var index = 0
            while index < words.count {
                let word = words[index]
                if Self.valued.contains(word), index + 1 < words.count {
                    values[word] = words[index + 1]
                    index += 2
                    continue
                }
                if word.hasPrefix("-") { flags.append(word) } else { positional.append(word) }
                index += 1
            }
        }

        subscript(key: String) -> String? { values[key] }
        var last: String? { positional.last }
    }
}

import Foundation
import PipeBasics
import PipeCore
import PipeSSH

/// `pipe hosts trust <host>`: shows the key a host presents and records it in the host's known_hosts file once a
/// person (or a script holding the fingerprint) confirms it. A changed key is never replaced here.
enum HostsTrustCommand {
    static let spec = CommandSpec(
        name: "trust",
        summary: "Show a host's key and add it to its known_hosts file after confirmation.",
        discussion: """
            Connects to the host without trusting it and without logging in, shows the key's type and SHA256 \
            fingerprint as OpenSSH prints them, and asks for confirmation on the terminal (type `yes` or paste the \
            fingerprint). Compare the fingerprint with the host's own, read on the host: \
            `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`. Only then is the line \
            `[address]:port type key` appended to the host's known-hosts file, and a login is tried.

            For scripts: --yes with --fingerprint, the fingerprint checked out of band; a key with another \
            fingerprint is refused. A key already trusted changes nothing. A key that differs from the one \
            recorded is never accepted here (it may be a man-in-the-middle): the message says how to inspect it \
            and remove the old entry, after which this command trusts the new key.

            Examples:
              pipe hosts trust mac-1
              pipe hosts trust mac-1 --yes --fingerprint SHA256:Qy1dyJzo1FlL0D2EsJLV8YQ2wjL0QPyVJEtt+RoH3oM
            """,
        arguments: [.required("host", help: "The host's name in the hosts file.")],
        options: [
            .flag("yes", short: "y", help: "Do not ask; needs --fingerprint, which the key must match."),
            .value(
                "fingerprint", valueName: "SHA256:…",
                help: "The fingerprint the key must have, as `ssh-keygen -lf` prints it on the host."),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "The key is trusted (now, or it already was)."),
                    .init("2", "Invalid usage (--yes without --fingerprint, no terminal to ask on), unknown host."),
                    .init(
                        "3",
                        "Not trusted: the host is unreachable, its key changed, the fingerprint does not match, or "
                            + "the answer was no. Nothing was written."),
                ])
        ])

    static func execute(_ session: HostsSession) throws -> Int32 {
        let arguments = session.arguments
        let console = session.console
        let yes = arguments.flag("yes")
        let expected = try arguments.string("fingerprint").map { try normalized($0, arguments) }
        if yes && expected == nil {
            throw UsageError(
                .custom(
                    "--yes needs --fingerprint SHA256:… (the fingerprint you read on the host), so a script never "
                        + "trusts a key nobody compared"), command: arguments.command)
        }
        let host = try session.hosts(named: [arguments.argument("host") ?? ""])[0]
        let knownHosts = session.expandingHome(host.knownHostsFile)
        let name = SSHHostKey.knownHostsName(address: host.address, port: host.port)
        let failed = PipeExitCode.environmentFailure.rawValue

        // What the known_hosts file says, by the same check a run makes.
        do {
            let verified = try SSHSession.connect(to: host, environment: session.environment)
            verified.disconnect(description: "pipe hosts trust is done")
            console.out(
                "host \(host.name) (\(name)): its \(verified.hostKey.displayType) key \(verified.hostKeyFingerprint) "
                    + "is already trusted in \(knownHosts); logged in as \(host.user). Nothing to do.\n")
            return 0
        } catch let error as RemoteError {
            switch error.kind {
            case .hostKeyUnknown:
                break
            case .authentication:
                let key = try? SSHSession.fetchHostKey(of: host)
                console.out(
                    "host \(host.name) (\(name)): its key\(key.map { " \($0.displayType) \($0.fingerprint)" } ?? "") "
                        + "is already trusted in \(knownHosts). Nothing to do.\n")
                console.err("warning: but the login failed: \(error.message)\n")
                return 0
            case .hostKeyChanged:
                console.err(
                    "error: host \(host.name) presents a key that differs from the one recorded; it is not trusted "
                        + "and nothing was written:\n\(error.message)\n")
                return failed
            default:
                console.err("error: \(error.description)\n")
                return failed
            }
        }

        let key: SSHHostKey
        do {
            key = try SSHSession.fetchHostKey(of: host)
        } catch let error as RemoteError {
            console.err("error: \(error.description)\n")
            return failed
        }
        let otherKeys = OtherKeyTypesWarning.text(
            for: key, address: host.address, port: host.port, knownHostsPath: knownHosts)
        if let otherKeys { console.err(otherKeys + "\n") }
        let established = otherKeys == nil ? "." : "\nbut keys of different type are already known for this host."
        console.out(
            """
            The authenticity of host '\(name)' (\(host.name)) can't be established\(established)
            \(key.displayType) key fingerprint is \(key.fingerprint).
            Trusting it appends this line to \(knownHosts):
              \(name) \(key.type) …

            """)
        if let expected, expected != key.fingerprint {
            console.err(
                "error: host \(host.name) presents \(key.fingerprint), not \(expected) (--fingerprint): the key was not "
                    + "trusted; nothing was written. Compare with `ssh-keygen -lf /etc/ssh/ssh_host_\(keyFileType(key))"
                    + "_key.pub` run on the host.\n")
            return failed
        }
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw UsageError(
                    .custom(
                        "no terminal to ask on: compare the fingerprint above with the one the host shows for its own "
                            + "key (`ssh-keygen -lf /etc/ssh/ssh_host_\(keyFileType(key))_key.pub` on the host); if they "
                            + "match, run `pipe hosts trust \(host.name) --yes --fingerprint <that fingerprint>`"),
                    command: arguments.command)
            }
            console.out("Trust this key for \(host.name)? (yes/no/[fingerprint]) ")
            let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces)
            guard answer == "yes" || answer == key.fingerprint else {
                console.err("not trusted: nothing was written to \(knownHosts)\n")
                return failed
            }
        }

        do {
            try append(key.knownHostsLine(address: host.address, port: host.port), to: knownHosts)
        } catch {
            console.err(
                "error: could not add the key to \(knownHosts): \(error.localizedDescription); check that this user may "
                    + "write it and its folder\n")
            return failed
        }
        console.out("✓ added \(name) \(key.type) (\(key.fingerprint)) to \(knownHosts)\n")

        // The proof: the same connection a run makes now gets past the key check.
        do {
            let session = try SSHSession.connect(to: host, environment: session.environment)
            session.disconnect(description: "pipe hosts trust is done")
            console.out("✓ connected to \(host.name) and logged in as \(host.user)\n")
        } catch let error as RemoteError {
            console.err("warning: the key is trusted, but connecting failed: \(error.message)\n")
        }
        return 0
    }

    /// `SHA256:abc`, `abc` or `abc=` → `SHA256:abc`, as OpenSSH prints it; anything else is a usage error.
    static func normalized(_ text: String, _ arguments: ParsedArguments) throws -> String {
        var body = text.trimmingCharacters(in: .whitespaces)
        if body.hasPrefix("SHA256:") { body.removeFirst("SHA256:".count) }
        while body.hasSuffix("=") { body.removeLast() }
        let base64 = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        guard body.count == 43, body.unicodeScalars.allSatisfy(base64.contains) else {
            throw UsageError(
                .invalidValue(
                    option: "--fingerprint", value: text,
                    expected: "a SHA256 fingerprint as `ssh-keygen -lf` prints it (SHA256: and 43 base64 characters)"),
                command: arguments.command)
        }
        return "SHA256:" + body
    }

    /// The file name part of the host's key file on the host (`ed25519` in `ssh_host_ed25519_key.pub`).
    private static func keyFileType(_ key: SSHHostKey) -> String {
        switch key.displayType {
        case "ED25519": return "ed25519"
        case "ECDSA": return "ecdsa"
        case "RSA": return "rsa"
        default: return "<type>"
        }
    }

    /// Appends `line` to the file (created, with its folder, when missing), on a line of its own.
    static func append(_ line: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        // A file that does not end with a newline would glue the new entry to its last line.
        let size = lseek(descriptor, 0, SEEK_END)
        var needsNewline = false
        if size > 0, let reader = FileHandle(forReadingAtPath: path) {
            try reader.seek(toOffset: UInt64(size - 1))
            needsNewline = reader.readData(ofLength: 1) != Data("\n".utf8)
            try reader.close()
        }
        try handle.write(contentsOf: Data(((needsNewline ? "\n" : "") + line + "\n").utf8))
        try handle.synchronize()
    }
}

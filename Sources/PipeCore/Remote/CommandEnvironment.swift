import Foundation
import PipeBasics

/// Environment variables for one host command, handed over on its standard input so that no value is ever part
/// of the command's text (where a shell would parse it, and `ps` on the host, a log or shell history would show it).
///
/// `wrap` turns a command into `exec /bin/sh -c '<readerScript>' pipe-environment '<command>' NAME…`: every word is
/// quoted with `ShellQuote`, so a login shell (zsh on a Mac) and `/bin/sh` read it alike. The reader takes one
/// record a line from stdin, each `<byte count> <base64 of the value>`, decodes it, checks its length and finally
/// runs `/bin/sh -c '<command>'` under `/usr/bin/env NAME=value…`. A value may hold newlines and any byte but NUL
/// (an environment variable ends at its first NUL, so one is refused here rather than cut short there). A record
/// is a complete line or the reader stops, so a cut stream never passes for a shorter value. The records carry
/// bytes, not text, so a binary value (a signing key) can travel the same way to a reader that writes it to a file.
public struct CommandEnvironment: Sendable, Equatable {
    /// The variables in the order they are set.
    public private(set) var names: [String] = []
    private var values: [[UInt8]] = []

    public init() {}

    /// The variables of `values` (name → value), in the order of their names.
    public init(_ values: [String: String]) throws(RequestError) {
        for (name, value) in values.sorted(by: { $0.key < $1.key }) { try set(name, to: value) }
    }

    public var isEmpty: Bool { names.isEmpty }

    /// Adds `name=value`; refuses a name that is not a shell identifier, a name given twice and a NUL byte.
    public mutating func set(_ name: String, to value: some Collection<UInt8>) throws(RequestError) {
        guard SecretDelivery.isIdentifier(name) else {
            throw RequestError("'\(name)' cannot name an environment variable: use letters, digits and '_'")
        }
        guard !names.contains(name) else {
            throw RequestError("the environment variable \(name) is given two values; give it one")
        }
        guard !value.contains(0) else {
            throw RequestError(
                "the value for \(name) holds a NUL byte, which no environment variable can carry; remove it")
        }
        names.append(name)
        values.append(Array(value))
    }

    /// Adds `name=value` with the value's UTF-8 bytes.
    public mutating func set(_ name: String, to value: String) throws(RequestError) {
        try set(name, to: Array(value.utf8))
    }

    /// The command line that runs `command` with these variables, and the stdin that carries their values; the
    /// command unchanged, and no stdin, when there are none.
    public func wrap(_ command: String) -> (command: String, stdin: Data?) {
        guard !isEmpty else { return (command, nil) }
        let line = ShellQuote.join(["exec", "/bin/sh", "-c", Self.readerScript, "pipe-environment", command] + names)
        return (line, Data(values.map(Self.record).joined().utf8))
    }

    /// One value as the reader takes it: `<byte count> <base64>` and a newline.
    static func record(_ value: [UInt8]) -> String {
        "\(value.count) \(Data(value).base64EncodedString())\n"
    }

    /// Reads one record per name in `$2…` from stdin and runs `$1` with `/bin/sh -c` under `/usr/bin/env` with
    /// them; exits 125, saying why on stderr, when a record is missing or malformed.
    ///
    /// POSIX `sh` only (dash, and bash 3.2 as macOS's `sh`), plus `openssl base64` (LibreSSL on a Mac), which
    /// decodes the same on both, where `base64`'s flags differ. `$(…)` drops trailing newlines, so the decoder's
    /// output is followed by an `x` that is taken off again. The byte count is checked in the C locale, where
    /// `${#v}` counts bytes, not characters. The reader's own variables are never exported, so the command sees
    /// only its environment and the names given.
    static let readerScript =
        "pipe_c=$1; shift; pipe_k=$#; "
        + "pipe_fail() { echo \"pipe: the values handed to this command $1; nothing was run\" >&2; exit 125; }; "
        + "while [ \"$pipe_k\" -gt 0 ]; do pipe_n=$1; shift; pipe_k=$((pipe_k - 1)); "
        + "IFS=' ' read -r pipe_l pipe_b || pipe_fail 'ended early'; "
        + "case $pipe_l in '' | *[!0-9]*) pipe_fail 'are malformed' ;; esac; "
        + "case $pipe_b in *[!A-Za-z0-9+/=]*) pipe_fail 'are malformed' ;; esac; "
        + "pipe_v=$(printf '%s\\n' \"$pipe_b\" | openssl base64 -d -A && echo x) "
        + "|| pipe_fail 'could not be decoded (is openssl on the host?)'; pipe_v=${pipe_v%x}; "
        + "[ \"$(LC_ALL=C; printf %s \"${#pipe_v}\")\" = \"$pipe_l\" ] || pipe_fail 'were cut short'; "
        + "set -- \"$@\" \"$pipe_n=$pipe_v\"; done; "
        + "exec /usr/bin/env \"$@\" /bin/sh -c \"$pipe_c\""
}

import Foundation
import PipeBasics

/// Hands secrets to a remote command as environment variables over its standard input (`CommandEnvironment`), so
/// no value appears on a command line (where `ps` on the host, shell history or a log would show it).
public enum SecretDelivery {
    /// The command line and the stdin that carries the values; `exportName` maps a secret's name to the variable
    /// the command sees (xcodebuild forwards `TEST_RUNNER_<NAME>` to the test process as `<NAME>`).
    public static func wrap(
        _ command: String, secrets: SecretValues, exportName: (String) -> String = { $0 }
    ) throws(RequestError) -> (command: String, stdin: Data?) {
        var exported: [String: String] = [:]
        for (name, value) in secrets.values { exported[exportName(name)] = value }
        return try CommandEnvironment(exported).wrap(command)
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isIdentifier(_ name: String) -> Bool { ShellQuote.isIdentifier(name) }
}

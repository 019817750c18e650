import Foundation
import PipeBasics

/// Hands secrets to a remote command over its standard input, so no value appears on a command line (where
/// `ps` on the host, shell history or a log would show it).
///
/// The command becomes `IFS= read -r V1 && export NAME1="$V1" && … && <command>`, and the values are written to
/// the channel's stdin one per line. Names are checked to be shell identifiers; values never reach the script.
public enum SecretDelivery {
    /// The script prefix and the stdin that carries the values; `exportName` maps a secret's name to the
    /// variable the command sees (xcodebuild forwards `TEST_RUNNER_<NAME>` to the test process as `<NAME>`).
    public static func wrap(
        _ command: String, secrets: SecretValues, exportName: (String) -> String = { $0 }
    ) -> (command: String, stdin: Data?) {
        guard !secrets.isEmpty else { return (command, nil) }
        var script = ""
        var input = ""
        for (index, entry) in secrets.values.sorted(by: { $0.key < $1.key }).enumerated() {
            let variable = exportName(entry.key)
            precondition(isIdentifier(variable), "secret names are checked when the pipeline is loaded")
            script += "IFS= read -r pipe_secret_\(index) && export \(variable)=\"$pipe_secret_\(index)\" && "
            script += "unset pipe_secret_\(index) && "
            input += entry.value + "\n"
        }
        return (script + command, Data(input.utf8))
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
    }
}

import Foundation
import PipeBasics

/// Where a command writes: stdout for results, stderr for problems. Unbuffered, so live output is live.
public struct Console {
    public var out: (String) -> Void
    public var err: (String) -> Void

    public init(out: @escaping (String) -> Void, err: @escaping (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's own stdout and stderr. Problems often quote what a person typed or a host sent: stderr shows
    /// control characters escaped (line breaks and tabs kept), so none of them reaches the terminal.
    public static let standard = Console(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data(escapedForTerminal($0).utf8)) })

    /// `text` with every control character escaped but line breaks and tabs.
    public static func escapedForTerminal(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map {
            DisplayEscaping.escaped(String($0), keepsTabs: true)
        }.joined(separator: "\n")
    }
}

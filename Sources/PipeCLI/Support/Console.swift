import Foundation

/// Where a command writes: stdout for results, stderr for problems. Unbuffered, so live output is live.
public struct Console {
    public var out: (String) -> Void
    public var err: (String) -> Void

    public init(out: @escaping (String) -> Void, err: @escaping (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's own stdout and stderr.
    public static let standard = Console(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data($0.utf8)) })
}

/// `xcresulttool` output that Pipe cannot read. The layer's verdict never depends on it alone: the exit code and the
/// log decide, the summary adds detail.
public enum XcresultError: Error, Equatable, CustomStringConvertible, Sendable {
    case emptyOutput(command: String)
    /// Not JSON: usually an error text, quoted here.
    case notJSON(command: String, firstLine: String)
    case invalidJSON(command: String, path: String, detail: String)
    /// `xcresulttool version` printed something unexpected.
    case unrecognizedVersion(String)

    public var description: String {
        switch self {
        case .emptyOutput(let command):
            return
                "`xcrun xcresulttool \(command)` printed nothing; check that the result bundle exists and is complete"
        case .notJSON(let command, let firstLine):
            var hint = "check the result bundle path and the host's Xcode"
            if firstLine.contains("--legacy") {
                hint =
                    "this xcresulttool wants the legacy command; check `xcrun xcresulttool version` (≥ 23021 needs "
                    + "`get test-results …`)"
            }
            return "`xcrun xcresulttool \(command)` did not print JSON; it printed '\(firstLine)'; \(hint)"
        case .invalidJSON(let command, let path, let detail):
            return "the JSON of `xcrun xcresulttool \(command)` is not in the expected format at \(path): \(detail)"
        case .unrecognizedVersion(let text):
            return
                "`xcrun xcresulttool version` printed '\(text)', not 'xcresulttool version <number>, …'; check the "
                + "host's Xcode (`xcodebuild -version`)"
        }
    }
}

/// `xccov` output Pipe cannot read.
public enum XccovError: Error, Equatable, CustomStringConvertible, Sendable {
    case emptyOutput
    case notJSON(firstLine: String)
    case invalidJSON(command: String, path: String, detail: String)

    public var description: String {
        switch self {
        case .emptyOutput:
            return
                "`xcrun xccov view --report --json` printed nothing; check that the layer ran with coverage on "
                + "(`coverage:` in the pipeline) and the result bundle is complete"
        case .notJSON(let firstLine):
            return
                "`xcrun xccov view --report --json` did not print JSON; it printed '\(firstLine)'; check the host's "
                + "Xcode (11 or later reads coverage from the result bundle)"
        case .invalidJSON(let command, let path, let detail):
            return "the JSON of `xcrun xccov \(command)` is not in the expected format at \(path): \(detail)"
        }
    }
}

/// Why a simctl listing could not be read. Each message names the place in the listing and what to check next.
public enum SimctlListError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The command printed nothing.
    case emptyOutput
    /// The output is not JSON (often an `xcrun: error: …` line when Xcode is missing).
    case notJSON(firstLine: String, detail: String)
    /// JSON, but without a `devices` object (e.g. the output of `simctl list runtimes -j`).
    case missingDevices(topLevelKeys: [String])
    /// A value in the JSON has the wrong type or a required key is missing.
    case invalidJSON(path: String, detail: String)
    /// Text that is not a simctl listing at all.
    case notAListing(firstLine: String)
    /// A line of the text listing that does not follow the grammar (1-based line number).
    case unreadableLine(number: Int, line: String, expected: String)

    public var description: String {
        let rerun = "run `xcrun simctl list devices available -j` on the host to see what it prints"
        switch self {
        case .emptyOutput:
            return "the simulator listing is empty; \(rerun), and check that Xcode's command line tools are selected"
        case .notJSON(let firstLine, let detail):
            return
                "the simulator listing is not JSON (\(detail)); it starts with '\(firstLine)'. Check that Xcode is "
                + "installed and selected (`xcode-select -p`), then \(rerun)"
        case .missingDevices(let keys):
            let shown = keys.isEmpty ? "none" : keys.sorted().joined(separator: ", ")
            return
                "the simulator listing has no \"devices\" object (top-level keys: \(shown)); it must come from "
                + "`xcrun simctl list devices [available] -j` or `xcrun simctl list -j`"
        case .invalidJSON(let path, let detail):
            return "the simulator listing is not in simctl's format at \(path): \(detail); \(rerun)"
        case .notAListing(let firstLine):
            return
                "the output is not a simctl listing: it starts with '\(firstLine)' instead of '== Devices ==' or "
                + "'-- <runtime> --'; \(rerun)"
        case .unreadableLine(let number, let line, let expected):
            return "line \(number) of the simulator listing, '\(line)', cannot be read: expected \(expected)"
        }
    }
}

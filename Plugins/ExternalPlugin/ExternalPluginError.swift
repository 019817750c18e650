/// Why an external plugin could not be found, described or started. In a run these become the layer's
/// `plugin-error` evidence; in `pipe validate` they are reported against the layer.
public enum ExternalPluginError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No `pipe-layer-<kind>` under the project's `Plugins/` nor on `PATH`.
    case notFound(kind: String, searched: [String])
    case cannotStart(String, String)
    /// `pipe-layer-<kind> --describe` failed or printed something that is not a description.
    case badDescription(executable: String, String)

    public var description: String {
        switch self {
        case .notFound(let kind, let searched):
            return "no external plugin for kind '\(kind)': no executable pipe-layer-\(kind) in "
                + searched.joined(separator: ", ")
                + "; put one in the project's Plugins/ folder (see docs/plugins.md) or fix the layer's `plugin:`"
        case .cannotStart(let executable, let reason):
            return "could not start \(executable): \(reason); check that it is executable and its #! line exists"
        case .badDescription(let executable, let reason):
            return "\(executable) --describe: \(reason); a plugin must print its description as one JSON object "
                + "(see docs/plugins.md)"
        }
    }
}

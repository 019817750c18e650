import PipeCore

/// No simulator could be chosen: a configuration problem (`host-config`), never a failure of the app.
///
/// The message says what was asked, lists what the host has (grouped by runtime) and what to do next.
public struct SimulatorSelectionError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        /// A UDID override names no simulator on the host.
        case udidNotFound(udid: String, source: String)
        /// A UDID override names a simulator the host lists as unavailable.
        case udidUnavailable(udid: String, source: String, reason: String?)
        /// `runtime:` is not `latest`, `17.5`, `iOS 17.5` or `>=17`.
        case invalidRuntime(String)
        /// `runtime: tvOS 17.0` for an iOS simulator.
        case runtimeForOtherPlatform(runtime: String, platform: String)
        /// Nothing matched the platform, device name and runtime; `detail` says which part failed.
        case noMatch(detail: String, suggestion: String?)
    }

    public var kind: Kind
    /// What was asked, in words (`platform iOS, device 'iPhone 15', runtime 'latest'`).
    public var request: String
    /// The host's available simulators, for the message.
    public var available: [Simulator]

    public init(_ kind: Kind, request: String, available: [Simulator]) {
        self.kind = kind
        self.request = request
        self.available = available
    }

    /// Always `host-config`: the host or the pipeline must change, the app is not at fault.
    public var outcome: LayerOutcome { .hostConfig }

    public var description: String {
        switch kind {
        case .invalidRuntime(let text):
            return
                "the simulator runtime '\(text)' is not understood; write `latest`, a version such as `17.5` or "
                + "`iOS 17.5`, or a minimum such as `>=17` in the pipeline's `simulator.runtime`"
        case .runtimeForOtherPlatform(let runtime, let platform):
            return
                "the simulator runtime '\(runtime)' is not for \(platform); set `simulator.platform` to match it, "
                + "or write the runtime as a version only (e.g. `17.5`)"
        case .udidNotFound(let udid, let source):
            return
                "\(source) names the simulator \(udid), which this host does not have.\n\(hostListing)\n"
                + "Use one of the UDIDs above, or remove the UDID to let Pipe choose by device name and runtime."
        case .udidUnavailable(let udid, let source, let reason):
            let why = reason.map { " (\($0))" } ?? ""
            return
                "\(source) names the simulator \(udid), which this host lists as unavailable\(why).\n"
                + "\(hostListing)\nUse one of the available UDIDs above, or install the missing runtime in "
                + "Xcode > Settings > Components."
        case .noMatch(let detail, let suggestion):
            let hint = suggestion.map { " Did you mean '\($0)'?" } ?? ""
            return
                "no available simulator matches \(request): \(detail).\(hint)\n\(hostListing)\n"
                + "Change the pipeline's `simulator:` (device and runtime) to one of these, or pass --udid (or "
                + "SIM_UDID) with one of the UDIDs above."
        }
    }

    /// The available simulators grouped by runtime, newest runtime last, one device per line.
    var hostListing: String {
        guard !available.isEmpty else {
            return
                "The host has no available simulators: install a runtime (Xcode > Settings > Components) and "
                + "create a device with `xcrun simctl create`."
        }
        let groups = Dictionary(grouping: available, by: \.runtimeName).values.sorted {
            SimctlListParser.runtimeOrder(SimulatorRuntimeKey($0[0]), SimulatorRuntimeKey($1[0]))
        }
        var lines = ["The host has \(available.count) available simulator\(available.count == 1 ? "" : "s"):"]
        for group in groups {
            lines.append("  \(group[0].runtimeName):")
            for simulator in group.sorted(by: { ($0.name, $0.udid) < ($1.name, $1.udid) }) {
                lines.append("    \(simulator.name)  \(simulator.udid)  \(simulator.state)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

import PipeBasics
import PipeCore

/// Chooses one simulator for a run, deterministically: the same listing gives the same UDID in any order.
///
/// Rules, in order:
/// 1. A UDID (`--udid`, `SIM_UDID` or the pipeline) overrides everything; it must name an available simulator.
/// 2. Only available simulators of the requested platform (`xrOS` and `visionOS` are the same family).
/// 3. Device name: an exact match; when none, a match that ignores case. No partial matches: `iPhone 15` never
///    picks `iPhone 15 Pro`.
/// 4. Runtime: the newest runtime that satisfies the requirement (`latest`, `17.5`, `iOS 17.5`, `>=17`), with
///    versions compared numerically (`17.10` > `17.9`).
/// 5. A booted simulator before a shut-down one, then the lowest UDID.
public enum SimulatorSelector {
    /// - Parameters:
    ///   - udidSource: who asked for `criteria.udid`, for messages (`SIM_UDID`, `--udid`, `the pipeline`).
    /// - Throws: `SimulatorSelectionError` (always a `host-config` problem) when nothing fits.
    public static func choose(
        from simulators: [Simulator], criteria: SimulatorCriteria, udidSource: String = "the pipeline"
    ) throws -> SimulatorChoice {
        let available = uniqueAvailable(simulators)
        if let udid = criteria.udid?.trimmingCharacters(in: .whitespaces), !udid.isEmpty {
            return try chooseByUDID(udid, among: simulators, available: available, source: udidSource)
        }
        let requirement: RuntimeRequirement
        do {
            requirement = try RuntimeRequirement.parse(criteria.runtime, platform: criteria.platform)
        } catch var error as SimulatorSelectionError {
            error.available = available
            throw error
        }
        let request = describe(criteria, requirement: requirement)
        func noMatch(_ detail: String, suggestion: String? = nil) -> SimulatorSelectionError {
            SimulatorSelectionError(
                .noMatch(detail: detail, suggestion: suggestion), request: request, available: available)
        }

        let family = SimulatorRuntimeKey.family(criteria.platform)
        let onPlatform = available.filter { SimulatorRuntimeKey.family($0.platform) == family }
        guard !onPlatform.isEmpty else {
            let platforms = Set(available.map(\.platform)).sorted().joined(separator: ", ")
            throw noMatch(
                "the host has no available \(family) simulators" + (platforms.isEmpty ? "" : " (only \(platforms))"))
        }

        var named = onPlatform
        var nameNote = "any device"
        if let wanted = criteria.deviceName?.trimmingCharacters(in: .whitespaces), !wanted.isEmpty {
            named = onPlatform.filter { $0.name == wanted }
            nameNote = "device '\(wanted)'"
            if named.isEmpty {
                named = onPlatform.filter { normalized($0.name) == normalized(wanted) }
                nameNote = "device '\(wanted)' (ignoring case)"
            }
            guard !named.isEmpty else {
                let names = Array(Set(onPlatform.map(\.name))).sorted()
                throw noMatch(
                    "no \(family) simulator is named '\(wanted)'",
                    suggestion: EditDistance.nearest(to: wanted, in: names))
            }
        }

        let qualifying = named.filter { requirement.accepts(NumericVersion($0.runtimeVersion)) }
        guard !qualifying.isEmpty else {
            let runtimes = Set(named.map(\.runtimeName)).sorted().joined(separator: ", ")
            throw noMatch("\(nameNote) is only on \(runtimes), not on runtime '\(requirement)'")
        }
        let newest = qualifying.compactMap { NumericVersion($0.runtimeVersion) }.max()
        let onNewest = qualifying.filter { NumericVersion($0.runtimeVersion) == newest }

        let ranked = onNewest.sorted { lhs, rhs in
            let lhsBooted = lhs.state == "Booted"
            let rhsBooted = rhs.state == "Booted"
            if lhsBooted != rhsBooted { return lhsBooted }
            return lhs.udid.uppercased() < rhs.udid.uppercased()
        }
        let chosen = ranked[0]
        var reason =
            "\(chosen.name) on \(chosen.runtimeName) (\(chosen.udid)), chosen because it matches platform \(family), "
            + "\(nameNote) and runtime '\(requirement)'"
        if requirement.description != chosen.runtimeVersion { reason += " = \(chosen.runtimeVersion)" }
        if ranked.count > 1 {
            let booted = ranked.filter { $0.state == "Booted" }.count
            var ties = "; \(ranked.count) simulators matched: "
            if booted == 0 {
                ties += "none booted, so the lowest UDID"
            } else if booted == 1 {
                ties += "the booted one preferred"
            } else {
                ties += "already booted preferred, then the lowest UDID"
            }
            reason += ties
        }
        return SimulatorChoice(simulator: chosen, reason: reason)
    }

    private static func chooseByUDID(
        _ udid: String, among simulators: [Simulator], available: [Simulator], source: String
    ) throws -> SimulatorChoice {
        let request = "UDID \(udid) (from \(source))"
        if let match = available.first(where: { $0.udid.caseInsensitiveCompare(udid) == .orderedSame }) {
            return SimulatorChoice(
                simulator: match,
                reason: "\(match.name) on \(match.runtimeName) (\(match.udid)), chosen because \(source) names its UDID"
            )
        }
        if let listed = simulators.first(where: { $0.udid.caseInsensitiveCompare(udid) == .orderedSame }) {
            throw SimulatorSelectionError(
                .udidUnavailable(udid: udid, source: source, reason: listed.availabilityError), request: request,
                available: available)
        }
        throw SimulatorSelectionError(.udidNotFound(udid: udid, source: source), request: request, available: available)
    }

    /// Available simulators, one per UDID, in a fixed order, so the input order never matters.
    private static func uniqueAvailable(_ simulators: [Simulator]) -> [Simulator] {
        var seen = Set<String>()
        return simulators.filter(\.isAvailable)
            .sorted {
                ($0.udid.uppercased(), $0.runtimeIdentifier, $0.name) < (
                    $1.udid.uppercased(), $1.runtimeIdentifier, $1.name
                )
            }
            .filter { seen.insert($0.udid.uppercased()).inserted }
    }

    private static func describe(_ criteria: SimulatorCriteria, requirement: RuntimeRequirement) -> String {
        var parts = ["platform \(SimulatorRuntimeKey.family(criteria.platform))"]
        if let name = criteria.deviceName, !name.isEmpty { parts.append("device '\(name)'") }
        parts.append("runtime '\(requirement)'")
        return parts.joined(separator: ", ")
    }

    private static func normalized(_ name: String) -> String {
        name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// The trust rule applied wherever a host is chosen: a run's code goes only to hosts whose level runs it
/// (`TrustLevel.hostRuns`), and a run that no candidate may take is refused before anything is sent.
public enum HostTrustCheck {
    /// The candidates (in their order) that may run code of `code`'s level. Throws a `RequestError` naming each
    /// refused host, the code's level and what to do, when none may. `hosts` is the whole hosts file, for advice.
    public static func allowed(_ candidates: [HostConfig], code: CodeTrust, hosts: [HostConfig]) throws
        -> [HostConfig]
    {
        let allowed = candidates.filter { $0.trust.hostRuns(code.level) }
        guard allowed.isEmpty else { return allowed }
        let refused = candidates.map { "host \($0.name) is `\($0.trust.rawValue)`" }.joined(separator: ", ")
        throw RequestError(
            "\(refused); this run's code is `\(code.level.rawValue)` (\(code.reason)): \(advice(for: code, hosts: hosts))"
        )
    }

    /// The hosts of `candidates` left out for `code`, each with why, for the run's output.
    public static func leftOut(_ candidates: [HostConfig], code: CodeTrust) -> [String] {
        candidates.filter { !$0.trust.hostRuns(code.level) }.map {
            "host \($0.name) left out: it is `\($0.trust.rawValue)` and this run's code is `\(code.level.rawValue)`"
        }
    }

    /// For planning before the commit is known (the controller's queue): the hosts of `candidates` that can run
    /// some level `origin`'s code may have. When none can, all of them: the run then starts and is refused by the
    /// engine with the reason, instead of waiting for a host that never comes.
    public static func plausible(
        _ candidates: [HostConfig], origin: CodeOrigin, trustedRefs: [TrustedRefPattern]
    ) -> [HostConfig] {
        let levels = origin.possibleLevels(trustedRefs: trustedRefs)
        let plausible = candidates.filter { host in levels.contains { host.trust.hostRuns($0) } }
        return plausible.isEmpty ? candidates : plausible
    }

    /// Whether every level `origin` can have is decided for each candidate before the commit is known: then the
    /// host may be chosen while the checkout runs.
    public static func decidedBeforeCheckout(
        _ candidates: [HostConfig], origin: CodeOrigin, trustedRefs: [TrustedRefPattern]
    ) -> Bool {
        let levels = origin.possibleLevels(trustedRefs: trustedRefs)
        return candidates.allSatisfy { host in
            let running = levels.filter { host.trust.hostRuns($0) }
            return running.isEmpty || running == levels
        } && candidates.contains { host in levels.allSatisfy { host.trust.hostRuns($0) } }
    }

    private static func advice(for code: CodeTrust, hosts: [HostConfig]) -> String {
        let levels = code.level.hostLevelsRunningIt
        let fitting = hosts.filter { $0.trust.hostRuns(code.level) }.map(\.name)
        var advice =
            fitting.isEmpty
            ? "no host of the hosts file runs it; add one with "
                + levels.map { "`trust: \($0.rawValue)`" }.joined(separator: " or ") + " to the hosts file"
            : "choose a host whose trust is " + levels.map { "`\($0.rawValue)`" }.joined(separator: " or ")
                + " (\(fitting.joined(separator: ", ")))"
        switch code.level {
        case .trusted: advice += ", or run a commit reachable from a ref that project.yml's `trusted-refs:` lists"
        case .untrusted: advice += "; untrusted code never runs on a host that runs the project's own code"
        case .release: break
        }
        return advice
    }
}

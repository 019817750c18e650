import Foundation

/// The checkout and the choice of a host, under the trust rule: a run's code goes only to a host whose level runs
/// it (`HostTrustCheck`), and a run no candidate may take is refused before anything is sent to a host.
extension RunEngine {
    /// Checks the request's code out and connects to a host that may run it; returns the connection and the hosts
    /// the run may move to (retries on another host choose among these only).
    ///
    /// Where every candidate's answer is known before the commit is (the usual case: trusted hosts and the
    /// project's own code), the connection is made while the checkout runs. Otherwise the host is chosen once the
    /// code's level is known. `checkedOut` is called as soon as the checkout ended, before the connection is waited
    /// for.
    func checkOutAndConnect(
        _ request: RunRequest, state: RunState, into folder: URL,
        checkedOut: (CheckedOutSource, CodeTrust) throws -> Void
    ) throws -> (session: Session, candidates: [HostConfig]) {
        let pipeline = request.pipeline
        let chosen = try SigningHostRule.restrict(
            try HostChooser.candidates(for: pipeline.hostSelection, override: request.hostOverride, among: hosts),
            for: pipeline, hosts: hosts)
        let origin = request.effectiveOrigin
        // The engine never reads pipelines or plugins from the checked-out ref.
        func checkOut() throws -> CodeTrust {
            let source = try checkout.checkout(
                pipeline.repository, projectDirectory: request.projectDirectory, into: folder,
                trustedRefs: request.trustedRefs)
            let code = CodeTrust.decide(
                origin: origin, commit: source.commit, reachableFrom: source.protectedRef,
                trustedRefs: request.trustedRefs)
            try checkedOut(source, code)
            return code
        }
        guard HostTrustCheck.decidedBeforeCheckout(chosen, origin: origin, trustedRefs: request.trustedRefs) else {
            let code = try checkOut()
            let candidates = try allowedHosts(chosen, code: code, state: state)
            return (try connect(candidates, state: state, announce: false), candidates)
        }
        let levels = origin.possibleLevels(trustedRefs: request.trustedRefs)
        let candidates = chosen.filter { host in levels.allSatisfy { host.trust.hostRuns($0) } }
        let connecting = BackgroundResult { [self] abandoned in
            try connect(candidates, state: state, announce: false, abandoned: abandoned)
        }
        // However this ends, the connection's thread has ended before the run lets go of its leases (a step that
        // throws leaves the connection unwanted; once it was taken, this returns at once).
        defer {
            connecting.abandon()
            _ = connecting.wait()
        }
        let code = try checkOut()
        _ = try allowedHosts(chosen, code: code, state: state)
        let session = try connecting.wait().get()
        _ = try HostTrustCheck.allowed([session.host], code: code, hosts: hosts)
        return (session, candidates)
    }

    /// The hosts of `chosen` that run `code`, saying which were left out; refuses the run when none does.
    private func allowedHosts(_ chosen: [HostConfig], code: CodeTrust, state: RunState) throws -> [HostConfig] {
        let allowed = try HostTrustCheck.allowed(chosen, code: code, hosts: hosts)
        for note in HostTrustCheck.leftOut(chosen, code: code) { state.journal.emit(.note(note)) }
        return allowed
    }
}

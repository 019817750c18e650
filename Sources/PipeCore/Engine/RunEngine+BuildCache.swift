import Foundation

/// Leasing a build cache of the host for a run that builds (docs/hosts.md, "Build caches").
extension RunEngine {
    /// The identity of the build cache the run builds in on `host`: `nil` when the host keeps none, no layer of the
    /// run builds in one (`LayerPlugin.buildsInCache`, `build-cache:`), or there is no store to lease it through.
    func buildCacheIdentity(
        _ request: RunRequest, host: HostConfig, environment: [String: String], state: RunState
    ) throws -> BuildCacheIdentity? {
        guard host.buildCache.isEnabled, leases != nil else { return nil }
        let snapshot = state.snapshot
        let builds = snapshot.layers.contains { record in
            guard let spec = request.pipeline.layer(named: record.name), spec.buildCache else { return false }
            return plugins.plugin(kind: spec.plugin)?.buildsInCache ?? false
        }
        // The checkout decided the code's level before any host was set up; without it nothing may be shared.
        guard builds, let trust = snapshot.code?.level else { return nil }
        let repository = request.pipeline.repository
        return BuildCacheIdentity(
            repository: repository.location ?? request.projectDirectory.standardizedFileURL.path,
            workspacePath: repository.workspacePath, trust: trust,
            developerDirectory: environment["DEVELOPER_DIR"])
    }

    /// The name of the host's build cache of `identity` this run now holds: the first of its `build-caches` no
    /// other run holds, waiting while every one is held (a second run of the same identity at once takes the next
    /// one). After `leaseWaitSeconds` the run builds without one, cold, rather than not at all.
    func leaseBuildCache(_ identity: BuildCacheIdentity, host: HostConfig, state: RunState) throws -> String? {
        guard let leases else { return nil }
        let names = identity.cacheNames(count: host.buildCache.cachesPerIdentity)
        let deadline = clock().addingTimeInterval(leaseWaitSeconds)
        var announced = false
        while true {
            let outcome = try leases.leaseBuildCache(host: host.name, caches: names, runID: state.runID)
            if let name = outcome.lease?.buildCache { return name }
            guard clock() < deadline else {
                state.journal.emit(
                    .warning(
                        "every build cache of this build on \(host.name) stayed in use (\(outcome.refusal ?? "busy")); "
                            + "building without one, cold. Raise `build-caches` in the hosts file to build warm"))
                return nil
            }
            if !announced {
                state.journal.emit(
                    .warning(
                        "waiting for a build cache on \(host.name): all \(names.count) of this build are in use "
                            + "(\(outcome.refusal ?? "busy"))"))
                announced = true
            }
            try pause(seconds: 1)
        }
    }

    /// The host's work folder, absolute, from the run folder it holds (`<work dir>/runs/<run id>`).
    static func workFolder(ofRunFolder runFolder: String, runID: String) -> String {
        let suffix = "/runs/" + runID
        return runFolder.hasSuffix(suffix) ? String(runFolder.dropLast(suffix.count)) : runFolder + "/.."
    }

    /// After a run that built in a build cache of `place`: removes the host's caches the hosts file's
    /// `build-cache:` policy says go (unused past `max-age`, then the least recently used past `max-size`), never
    /// one a run holds (this one's included). What this costs is one command at the run's end.
    func evictBuildCaches(at place: HostPlace, journal: RunJournal) {
        guard place.buildCache != nil else { return }
        let host = place.link.host
        let leased = ((try? leases?.activeLeases(host: host.name)) ?? []).compactMap(\.buildCache)
        let command = BuildCacheEviction.command(
            workDirectory: host.workDirectory, mode: .evict, policy: host.buildCache, leased: leased,
            measureOnly: false)
        guard let output = try? place.link.remote.capture(command, timeoutSeconds: 600) else { return }
        let removed = BuildCacheEviction.read(output.stdoutText).filter { $0.state == .removed }
        guard !removed.isEmpty else { return }
        let bytes = removed.reduce(Int64(0)) { $0 + $1.bytes }
        journal.emit(
            .note(
                "removed \(removed.count == 1 ? "1 build cache" : "\(removed.count) build caches") on \(host.name) "
                    + "by its build-cache policy (\(bytes / 1_048_576) MiB): "
                    + removed.map(\.name).joined(separator: ", ")))
    }
}

import Foundation
import PipeCore
import PipeSSH

/// The build caches `pipe hosts clean` removes (`BuildCacheEviction`): by the host's `build-cache:` policy, or
/// every one with `--build-caches`; never one a run or a sync holds.
enum HostsCleanBuildCaches {
    /// Runs the eviction on `remote`; returns what it did, or why it could not.
    static func clean(
        on remote: SSHRemoteHost, host: HostConfig, mode: BuildCacheEviction.Mode, leased: [String], dryRun: Bool
    ) -> ([BuildCacheEviction.Removal], String?) {
        do {
            let output = try remote.capture(
                BuildCacheEviction.command(
                    workDirectory: host.workDirectory, mode: mode, policy: host.buildCache, leased: leased,
                    measureOnly: dryRun), timeoutSeconds: 600)
            let removals = BuildCacheEviction.read(output.stdoutText)
            guard output.exit == .exited(0) else {
                return (
                    removals,
                    "could not clean the build caches (\(output.exit.artifactText)): "
                        + (HostProbe.firstLine(output.stderrText) ?? "no detail")
                )
            }
            return (removals, nil)
        } catch {
            return ([], "could not clean the build caches: \(error)")
        }
    }

    /// The lines `pipe hosts clean` prints about build caches, one per host that had any to remove or leave.
    static func report(_ removals: [(host: String, removals: [BuildCacheEviction.Removal])], dryRun: Bool)
        -> [String]
    {
        removals.compactMap { host, removals in
            let removed = removals.filter { $0.state == .removed }
            let busy = removals.filter { $0.state == .busy }.map(\.name)
            guard !removed.isEmpty else { return nil }
            let bytes = removed.reduce(Int64(0)) { $0 + $1.bytes }
            var line =
                "\(host): " + (dryRun ? "would free " : "freed ") + "\(RunsFormatting.bytes(bytes)) in "
                + (removed.count == 1 ? "1 build cache" : "\(removed.count) build caches")
                + " (\(removed.map(\.name).joined(separator: ", ")))"
            if !busy.isEmpty { line += "; in use, left alone: \(busy.joined(separator: ", "))" }
            return line
        }
    }
}

import Foundation
import PipeBasics
import PipeCore
import PipeSSH

/// `pipe hosts clean [host…]`: removes what Pipe left on hosts — the run folders of ended runs that were never
/// removed (interrupted runs, failed clean-ups), the process groups interrupted runs left running, the simulators
/// they created (`HostsCleanSimulators`), and workspace
/// caches unused for longer than the retention (`HostsCleanCaches`).
enum HostsCleanCommand {
    static let spec = CommandSpec(
        name: "clean",
        summary:
            "Remove what Pipe left on hosts: run folders of ended runs, processes of interrupted runs, old caches.",
        discussion: """
            Works from the run store: the run folders of ended runs (finished, cancelled, interrupted) that were \
            never reported removed, and the process groups their layers started (recorded the moment they \
            started). A run in progress is never touched: runs whose coordinator died are marked interrupted \
            first. A process group is stopped (SIGTERM, then SIGKILL) only while one of its processes still \
            names the run's folder, so a group id the host has since given to something else is left alone. Each \
            folder is measured (`find … -type f` with `stat -f %z`) before it goes; the total freed is printed. \
            Folders under a host's runs/ that the run store does not know at all (runs pruned before their folder \
            was cleaned, or another coordinator's) are named, never removed. --dry-run shows what would be stopped \
            and freed, and changes nothing. Simulators such a run created (simulator.create: true) and never \
            deleted are deleted (`xcrun simctl delete`) before its folder goes.

            Workspace caches (<work dir>/cache/<key>, the copy each sync updates) whose manifest was last written \
            more than --cache-days days ago (default 14) are removed too; a cache a sync holds (its lock folder \
            exists) is left alone, and the clean-up takes that lock itself while it removes one.

            Build caches (<work dir>/cache/<trust>-<hex>-<n>: a workspace tree, its DerivedData and package \
            checkouts) go by the host's `build-cache:` policy in the hosts file: those unused for longer than \
            max-age, then the least recently used until all fit in max-size. --build-caches removes every one. A \
            cache a run holds (its lease in the run store) or a sync holds is left alone.

            Examples:
              pipe hosts clean
              pipe hosts clean mac-2 --dry-run
              pipe hosts clean --cache-days 3
              pipe hosts clean mac-1 --build-caches
            """,
        arguments: [.variadic("host", help: "Hosts to clean (default: every host of the hosts file).")],
        options: [
            .flag("dry-run", short: "n", help: "Show what would be stopped and removed; change nothing."),
            .value(
                "cache-days", valueName: "days", default: "\(HostsCleanCaches.defaultDays)",
                help: "Remove workspace caches unused for more than this many days."),
            .flag("build-caches", help: "Remove every build cache no run holds, not only those past the policy."),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "Everything found was cleaned (or nothing was left)."),
                    .init("2", "Invalid usage, an unknown host name or an invalid hosts file."),
                    .init("3", "A host could not be reached, or something could not be stopped or removed."),
                ])
        ])

    /// One run folder to remove, with the process groups its layers started on the host.
    struct Item {
        var cleanup: RemoteCleanup
        var groups: [RunProcessGroups.Group]
        /// Simulators the run created and did not delete (`HostsCleanSimulators`).
        var simulators: [String] = []
    }

    /// What happened to one item on its host.
    struct Outcome {
        var item: Item
        var bytes: Int64?
        var files = 0
        var absent = false
        var removed = false
        var notes: [String] = []
        var stoppedGroups = 0
        var error: String?
    }

    static func execute(_ session: HostsSession) throws -> Int32 {
        let named = session.arguments.variadic("host")
        let hosts = try session.hosts(named: named)
        let allNames = Set(try session.hosts().map(\.name))
        let dryRun = session.arguments.flag("dry-run")
        let cacheDays = try session.arguments.int("cache-days") ?? HostsCleanCaches.defaultDays
        guard cacheDays >= 0 else {
            throw UsageError(
                .invalidValue(option: "--cache-days", value: "\(cacheDays)", expected: "0 or more days"),
                command: session.arguments.command)
        }
        let store = try session.store
        let console = session.console

        var work: [String: [Item]] = [:]
        var skipped: [String] = []
        for cleanup in try store.pendingRemoteCleanups() {
            guard let hostName = cleanup.hostName else {
                skipped.append("run \(cleanup.runID): no host recorded for \(cleanup.remoteRunFolder)")
                continue
            }
            guard allNames.contains(hostName) else {
                if named.isEmpty {
                    skipped.append(
                        "run \(cleanup.runID): host \(hostName) is no longer in the hosts file; its folder "
                            + "\(cleanup.remoteRunFolder) is left there")
                }
                continue
            }
            guard hosts.contains(where: { $0.name == hostName }) else { continue }
            guard isRunFolder(cleanup.remoteRunFolder, of: cleanup.runID) else {
                skipped.append(
                    "run \(cleanup.runID): the recorded folder \(cleanup.remoteRunFolder) on \(hostName) is not a "
                        + "Pipe run folder (…/runs/\(cleanup.runID)); not removing it")
                continue
            }
            let groups = try RunProcessGroups.recorded(of: cleanup.runID, on: hostName, store: store)
            let simulators = try HostsCleanSimulators.leftBy(cleanup.runID, on: hostName, store: store)
            work[hostName, default: []].append(Item(cleanup: cleanup, groups: groups, simulators: simulators))
        }

        let buildCacheMode: BuildCacheEviction.Mode = session.arguments.flag("build-caches") ? .all : .evict
        // Build caches runs hold now: never touched.
        try store.recoverLeases()
        let leasedCaches = Dictionary(grouping: try store.activeLeases(host: nil).filter { $0.kind == .buildCache }) {
            $0.host
        }.mapValues { $0.compactMap(\.buildCache) }

        // Every host is visited, also those with nothing pending, to find run folders this store does not know.
        let environment = session.environment
        let results = HostsSession.concurrently(hosts) { host in
            clean(
                work[host.name] ?? [], on: host, environment: environment, dryRun: dryRun, cacheDays: cacheDays,
                buildCaches: (buildCacheMode, leasedCaches[host.name] ?? []))
        }

        var outcomes: [Outcome] = []
        var failures: [String] = []
        var unknownFolders: [(host: String, folders: [String])] = []
        var caches: [(host: String, removals: [HostsCleanCaches.Removal])] = []
        var buildCaches: [(host: String, removals: [BuildCacheEviction.Removal])] = []
        for (host, result) in zip(hosts, results) {
            switch result {
            case .failure(let error) where work[host.name] == nil:
                skipped.append("host \(host.name) could not be reached (\(error.message)); nothing was pending there")
            case .failure(let error):
                failures.append("host \(host.name): \(error.message)")
            case .success(let visit):
                outcomes += visit.outcomes
                caches.append((host.name, visit.caches))
                buildCaches.append((host.name, visit.buildCaches))
                if let error = visit.cacheError { failures.append("host \(host.name): \(error)") }
                if let error = visit.buildCacheError { failures.append("host \(host.name): \(error)") }
                for removal in visit.buildCaches where removal.state == .failed {
                    failures.append(
                        "host \(host.name): the build cache \(removal.name) could not be removed entirely; check its "
                            + "permissions under \(host.workDirectory)/cache")
                }
                for removal in visit.caches where removal.state == .failed {
                    failures.append(
                        "host \(host.name): the workspace cache \(removal.key) could not be removed entirely; "
                            + "check its permissions under \(host.workDirectory)/cache")
                }
                let unknown = try visit.runFolders.filter { folder in
                    let name = String(folder.split(separator: "/").last ?? "")
                    guard RunID(name) != nil, !visit.outcomes.contains(where: { $0.item.cleanup.runID == name }) else {
                        return false
                    }
                    return try store.run(name) == nil
                }
                if !unknown.isEmpty { unknownFolders.append((host.name, unknown)) }
            }
        }
        if !dryRun {
            for outcome in outcomes where outcome.removed || outcome.absent {
                try store.markRemoteFolderCleaned(runID: outcome.item.cleanup.runID, at: Date())
                try store.releaseLeases(runID: outcome.item.cleanup.runID)
            }
        }
        failures += outcomes.compactMap { outcome in
            outcome.error.map {
                "host \(outcome.item.cleanup.hostName ?? "?"), run \(outcome.item.cleanup.runID): \($0)"
            }
        }

        report(outcomes, dryRun: dryRun, hosts: hosts, console: console)
        for line in HostsCleanCaches.report(caches, days: cacheDays, dryRun: dryRun) { console.out(line + "\n") }
        for line in HostsCleanBuildCaches.report(buildCaches, dryRun: dryRun) { console.out(line + "\n") }
        for (host, folders) in unknownFolders {
            // Runs pruned before their folder was cleaned, or runs of another coordinator (in progress, maybe):
            // nothing here says which, so Pipe leaves them alone.
            skipped.append(
                "host \(host) keeps \(folders.count == 1 ? "a run folder" : "\(folders.count) run folders") this run "
                    + "store does not know (a run pruned before its folder was cleaned, or another coordinator's "
                    + "run): \(folders.joined(separator: ", ")); Pipe leaves \(folders.count == 1 ? "it" : "them") "
                    + "alone: remove by hand what no run uses")
        }
        for line in skipped { console.err("note: \(line)\n") }
        for failure in failures { console.err("error: \(failure)\n") }
        return failures.isEmpty ? 0 : PipeExitCode.environmentFailure.rawValue
    }

    /// A folder `…/runs/<run id>`: the only shape the engine creates, so a damaged record cannot send
    /// `rm -rf` anywhere else.
    static func isRunFolder(_ path: String, of runID: String) -> Bool {
        let parts = path.split(separator: "/").map(String.init)
        return path.hasPrefix("/") && parts.count >= 3 && parts.last == runID && parts[parts.count - 2] == "runs"
            && RunID(runID) != nil && !parts.contains("..") && !parts.contains(".")
    }

    // MARK: - On the host

    /// Measures folder `$1` (`pipe-size <files> <bytes>`, or `pipe-absent`) and, when `$2` is `remove`, removes it.
    static let measureAndRemoveScript =
        "f=$1; [ -d \"$f\" ] || { echo pipe-absent; exit 0; }; n=0; s=0; "
        + "for z in $(find \"$f\" -type f -exec stat -f %z {} +); do n=$((n+1)); s=$((s+z)); done; "
        + "echo \"pipe-size $n $s\"; [ \"$2\" = remove ] || exit 0; rm -rf -- \"$f\"; "
        + "[ ! -e \"$f\" ] || { echo \"$f is still there after rm -rf\" >&2; exit 1; }"

    /// Prints the absolute path of every folder in `$1/runs` (`$1`: the work folder, relative to the home).
    static let runFoldersScript =
        "d=$1; case \"$d\" in '~/'*) d=${d#??} ;; esac; [ -d \"$d/runs\" ] || exit 0; cd \"$d/runs\" || exit 1; "
        + "for f in *; do [ -d \"$f\" ] && printf '%s\\n' \"$PWD/$f\"; done; exit 0"

    /// What one host's visit found and did.
    struct Visit {
        var outcomes: [Outcome]
        /// Every folder under the work folder's `runs/` after the clean-up (or before, with `--dry-run`).
        var runFolders: [String]
        /// The workspace caches past the retention.
        var caches: [HostsCleanCaches.Removal] = []
        var cacheError: String?
        /// The build caches removed (or to remove) and those left alone.
        var buildCaches: [BuildCacheEviction.Removal] = []
        var buildCacheError: String?
    }

    private static func clean(
        _ items: [Item], on host: HostConfig, environment: [String: String], dryRun: Bool, cacheDays: Int,
        buildCaches: (mode: BuildCacheEviction.Mode, leased: [String])
    ) -> Result<Visit, RemoteError> {
        let remote: SSHRemoteHost
        do {
            remote = try SSHRemoteHost(connectingTo: host, environment: environment)
        } catch let error as RemoteError {
            return .failure(error)
        } catch {
            return .failure(RemoteError(.unreachable, host: host.name, "\(error)"))
        }
        defer { remote.session.disconnect(description: "pipe hosts clean is done") }
        var outcomes: [Outcome] = []
        for item in items {
            var outcome = Outcome(item: item)
            do {
                try stopGroups(of: item, on: remote, dryRun: dryRun, into: &outcome)
                if outcome.error == nil, !item.simulators.isEmpty {
                    let deletion = try HostsCleanSimulators.delete(item.simulators, on: remote, dryRun: dryRun)
                    outcome.notes += deletion.notes
                    outcome.error = deletion.error
                }
                if outcome.error == nil { try removeFolder(of: item, on: remote, dryRun: dryRun, into: &outcome) }
            } catch let error as RemoteError {
                outcome.error = error.message
            } catch {
                outcome.error = "\(error)"
            }
            outcomes.append(outcome)
        }
        var folders: [String] = []
        let listing = try? remote.capture(
            ShellQuote.join(["/bin/sh", "-c", runFoldersScript, "pipe-run-folders", host.workDirectory]),
            timeoutSeconds: 60)
        if let listing, listing.exit == .exited(0) {
            folders = listing.stdoutText.split(separator: "\n").map(String.init)
        }
        var visit = Visit(outcomes: outcomes, runFolders: folders)
        do {
            let output = try remote.capture(
                HostsCleanCaches.command(workDirectory: host.workDirectory, days: cacheDays, dryRun: dryRun),
                timeoutSeconds: 600)
            visit.caches = HostsCleanCaches.read(output.stdoutText)
            if output.exit != .exited(0) {
                visit.cacheError =
                    "could not clean the workspace caches (\(output.exit.artifactText)): "
                    + (HostProbe.firstLine(output.stderrText) ?? "no detail")
            }
        } catch {
            visit.cacheError = "could not clean the workspace caches: \(error)"
        }
        (visit.buildCaches, visit.buildCacheError) = HostsCleanBuildCaches.clean(
            on: remote, host: host, mode: buildCaches.mode, leased: buildCaches.leased, dryRun: dryRun)
        return .success(visit)
    }

    private static func stopGroups(of item: Item, on remote: SSHRemoteHost, dryRun: Bool, into outcome: inout Outcome)
        throws
    {
        let stopping = try RunProcessGroups.stop(
            item.groups, runFolder: item.cleanup.remoteRunFolder, on: remote, dryRun: dryRun)
        outcome.stoppedGroups += stopping.stopped
        outcome.notes += stopping.notes
        outcome.error = stopping.error
    }

    private static func removeFolder(of item: Item, on remote: SSHRemoteHost, dryRun: Bool, into outcome: inout Outcome)
        throws
    {
        let command = ShellQuote.join([
            "/bin/sh", "-c", measureAndRemoveScript, "pipe-clean", item.cleanup.remoteRunFolder,
            dryRun ? "measure" : "remove",
        ])
        let output = try remote.capture(command, timeoutSeconds: 600)
        let lines = output.stdoutText.split(separator: "\n").map(String.init)
        if lines.contains("pipe-absent") {
            outcome.absent = true
            outcome.notes.append("already gone")
            return
        }
        if let size = lines.first(where: { $0.hasPrefix("pipe-size ") })?.split(separator: " "), size.count == 3 {
            outcome.files = Int(size[1]) ?? 0
            outcome.bytes = Int64(size[2])
        }
        guard output.exit == .exited(0) else {
            let detail = HostProbe.firstLine(output.stderrText) ?? "no detail"
            outcome.error =
                "could not remove \(item.cleanup.remoteRunFolder) (\(output.exit.artifactText)): \(detail)"
            return
        }
        outcome.removed = !dryRun
    }

    // MARK: - Report

    private static func report(_ outcomes: [Outcome], dryRun: Bool, hosts: [HostConfig], console: Console) {
        guard !outcomes.isEmpty else {
            let which = hosts.count == 1 ? "on \(hosts[0].name)" : "on the hosts"
            console.out("nothing to clean \(which): no run folder of an ended run is left there\n")
            return
        }
        let rows = outcomes.map { outcome -> [String] in
            let cleanup = outcome.item.cleanup
            var note = outcome.notes
            if let error = outcome.error { note.append("FAILED: " + (HostProbe.firstLine(error) ?? error)) }
            return [
                cleanup.hostName ?? "-", cleanup.runID, cleanup.status.rawValue, cleanup.remoteRunFolder,
                outcome.bytes.map(RunsFormatting.bytes) ?? "-", note.joined(separator: "; "),
            ]
        }
        console.out(
            RunsFormatting.table(header: ["HOST", "RUN", "STATUS", "FOLDER", "SIZE", "NOTE"], rows: rows))
        let cleaned = outcomes.filter { $0.error == nil && !$0.absent }
        let bytes = cleaned.reduce(Int64(0)) { $0 + ($1.bytes ?? 0) }
        let files = cleaned.reduce(0) { $0 + $1.files }
        let hostCount = Set(cleaned.compactMap(\.item.cleanup.hostName)).count
        let folders = cleaned.count == 1 ? "1 run folder" : "\(cleaned.count) run folders"
        var line =
            (dryRun ? "would free " : "freed ") + "\(RunsFormatting.bytes(bytes)) (\(bytes) bytes, \(files) files) "
            + "in \(folders) on \(hostCount == 1 ? "1 host" : "\(hostCount) hosts")"
        let stopped = outcomes.reduce(0) { $0 + $1.stoppedGroups }
        if stopped > 0 { line += "; stopped \(stopped == 1 ? "1 process group" : "\(stopped) process groups")" }
        console.out(line + "\n")
    }
}

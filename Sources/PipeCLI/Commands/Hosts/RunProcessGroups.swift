import Foundation
import PipeBasics
import PipeCore
import PipeSSH

/// The process groups a run's layers started on a host, as its `remote-process-started` events recorded them the
/// moment they started, and their stopping: what `pipe hosts clean` does for interrupted runs, and what a controller
/// does for a dead coordinator's runs before their slots are given to anyone else (a coordinator killed with -9
/// stops nothing on the Mac).
enum RunProcessGroups {
    /// One recorded group.
    struct Group {
        var layer: String?
        var id: Int32
    }

    /// What stopping a run's groups did.
    struct Stopping {
        var stopped = 0
        var notes: [String] = []
        var error: String?
    }

    /// The groups `runID`'s layers started on `host`.
    static func recorded(of runID: String, on host: String, store: RunStore) throws -> [Group] {
        struct Started: Decodable {
            var host: String?
            var layer: String?
            var processGroup: Int32?
        }
        var groups: [Group] = []
        var after: Int64 = 0
        while true {
            let events = try store.events(runID: runID, after: after, layer: nil, limit: 1000)
            guard let last = events.last else { break }
            after = last.sequence
            for event in events where event.type == "remote-process-started" {
                guard let started = try? JSONDecoder().decode(Started.self, from: Data(event.payload.utf8)),
                    let id = started.processGroup, id > 1, started.host == nil || started.host == host,
                    !groups.contains(where: { $0.id == id })
                else { continue }
                groups.append(Group(layer: started.layer ?? event.layer, id: id))
            }
        }
        return groups
    }

    /// Prints the arguments of each live (not zombie) process of group `$1`, one per line.
    static let groupMembersScript =
        "p=$1; ps -A -o pgid= -o stat= -o args= | while read g s a; do [ \"$g\" = \"$p\" ] || continue; "
        + "case \"$s\" in Z*) continue ;; esac; printf '%s\\n' \"$a\"; done"

    /// Stops (SIGTERM, then SIGKILL) each group that still works in `runFolder`: a group id may have been given to
    /// other processes since, and those are left alone. Stops at the first group it cannot list.
    static func stop(_ groups: [Group], runFolder: String, on remote: SSHRemoteHost, dryRun: Bool = false) throws
        -> Stopping
    {
        var stopping = Stopping()
        for group in groups {
            let what = "process group \(group.id)" + (group.layer.map { " (layer \($0))" } ?? "")
            let listing = try remote.capture(
                ShellQuote.join(["/bin/sh", "-c", groupMembersScript, "pipe-group-members", String(group.id)]),
                timeoutSeconds: 30)
            guard listing.exit == .exited(0) else {
                stopping.error = "could not list the processes of \(what): \(listing.stderrText)"
                return stopping
            }
            let members = listing.stdoutText.split(separator: "\n").map(String.init)
            if members.isEmpty { continue }
            guard members.contains(where: { $0.contains(runFolder) }) else {
                stopping.notes.append("\(what) now belongs to other processes: left alone")
                continue
            }
            if dryRun {
                stopping.notes.append("would stop \(what): \(members.count) processes")
                continue
            }
            try remote.terminate(RemoteProcessGroup(id: group.id), graceSeconds: 3)
            stopping.stopped += 1
            stopping.notes.append("stopped \(what): \(members.count) processes")
        }
        return stopping
    }

    /// Stops what the run of a dead coordinator still runs on its host, before the run is marked interrupted and
    /// its slots go to others; `nil` when it recorded nothing to stop. Says what it did, `isProblem` when something
    /// could not be stopped or checked (then `pipe hosts clean` stops it later).
    static func stopWork(
        of run: StoredRun, hosts: () throws -> [HostConfig], environment: [String: String], store: RunStore
    ) -> (message: String, isProblem: Bool)? {
        guard let hostName = run.record.host?.name, let folder = run.record.remoteRunFolder else { return nil }
        do {
            let groups = try recorded(of: run.record.runID, on: hostName, store: store)
            guard !groups.isEmpty else { return nil }
            guard let host = try hosts().first(where: { $0.name == hostName }) else {
                return ("its host \(hostName) is not in the hosts file, so its processes were not stopped", true)
            }
            let remote = try SSHRemoteHost(connectingTo: host, environment: environment)
            defer { remote.session.disconnect(description: "the dead run's processes are stopped") }
            let stopping = try stop(groups, runFolder: folder, on: remote)
            let stopped = stopping.stopped == 1 ? "1 process group" : "\(stopping.stopped) process groups"
            let said = ([stopping.error].compactMap { $0 } + stopping.notes).joined(separator: "; ")
            return ("stopped \(stopped) on \(hostName)" + (said.isEmpty ? "" : " (\(said))"), stopping.error != nil)
        } catch {
            return ("could not stop its processes on \(hostName): \(error); `pipe hosts clean` stops them later", true)
        }
    }
}

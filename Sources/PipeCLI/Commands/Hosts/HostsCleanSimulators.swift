import Foundation
import PipeApple
import PipeCore
import PipeSSH

/// The simulators `pipe hosts clean` deletes: those a run created (`simulator.create: true`, a
/// `simulator-created` event) and never reported deleted (no `simulator-deleted` event), because its coordinator
/// died or lost the host first.
enum HostsCleanSimulators {
    /// The UDIDs of simulators `runID` created on `host` and did not delete, in the order they were created.
    static func leftBy(_ runID: String, on host: String, store: RunStore) throws -> [String] {
        var created: [String] = []
        var deleted: Set<String> = []
        var after: Int64 = 0
        while true {
            let events = try store.events(runID: runID, after: after, layer: nil, limit: 1000)
            guard let last = events.last else { break }
            after = last.sequence
            for event in events
            where event.type == RunEngine.CreatedSimulatorEvent.created
                || event.type == RunEngine.CreatedSimulatorEvent.deleted
            {
                guard
                    let payload = try? JSONDecoder().decode(
                        RunEngine.CreatedSimulatorEvent.self, from: Data(event.payload.utf8)),
                    payload.host == host
                else { continue }
                if event.type == RunEngine.CreatedSimulatorEvent.created {
                    if !created.contains(payload.udid) { created.append(payload.udid) }
                } else {
                    deleted.insert(payload.udid)
                }
            }
        }
        return created.filter { !deleted.contains($0) }
    }

    /// Deletes (or, with `dryRun`, names) the simulators of `udids` on `remote`; returns notes, and the error of
    /// the first that could not be deleted.
    static func delete(_ udids: [String], on remote: SSHRemoteHost, dryRun: Bool) throws -> (
        notes: [String], deleted: [String], error: String?
    ) {
        var notes: [String] = []
        var deleted: [String] = []
        for udid in udids {
            if dryRun {
                notes.append("would delete simulator \(udid) (created by the run)")
                continue
            }
            let command = SimulatorCreation.deleteCommand(udid: udid)
            let output = try remote.capture(command, timeoutSeconds: 120)
            if output.exit == .exited(0) || SimulatorCreation.isAlreadyGone(output) {
                deleted.append(udid)
                notes.append(
                    output.exit == .exited(0)
                        ? "deleted simulator \(udid) (created by the run)" : "simulator \(udid) already gone")
                continue
            }
            let said = output.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
            return (
                notes, deleted,
                "could not delete simulator \(udid) (`\(command)` ended with \(output.exit.artifactText)"
                    + (said.isEmpty ? ")" : ": \(said.split(whereSeparator: \.isNewline).joined(separator: " / ")))")
            )
        }
        return (notes, deleted, nil)
    }
}

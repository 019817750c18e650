import Foundation
import PipeBasics
import PipeCore

/// `pipe hosts list`: the hosts file, with what the run store knows of each host (slots in use, last check).
enum HostsListCommand {
    static let spec = CommandSpec(
        name: "list",
        summary: "List the hosts of the hosts file: labels, capacity, slots in use, last health check.",
        discussion: """
            Reads the hosts file and the run store; connects to nothing (`pipe hosts check` does). IN USE counts \
            the slots leased by runs in progress; TRUST is the code the host runs (docs/security.md); LAST CHECK \
            is the latest `pipe hosts check` of the host: a host whose latest check failed is out of rotation \
            until a check passes again. --json prints a JSON array \
            (keys: name, address, port, user, endpoint, capacity, leasedSlots, leases, labels, xcodes, workDir, \
            trust, knownHosts, identityFile, useAgent, health {checkedAt, usable, problem, latencySeconds, \
            consecutiveFailures, lastUsableAt} or null).

            Examples:
              pipe hosts list
              pipe hosts list --json
            """,
        options: [.flag("json", help: "Print a JSON array instead of the table.")])

    static func execute(_ session: HostsSession) throws -> Int32 {
        let hosts = try session.hosts()
        let store = try session.store
        // Leases of dead processes or ended runs are not "in use": take them back before counting.
        try store.recoverLeases()
        let leases = try store.activeLeases(host: nil)
        let health = Dictionary(
            try store.hostHealth(hosts.map(\.name)).map { ($0.host, $0) }, uniquingKeysWith: { first, _ in first })

        if session.arguments.flag("json") {
            let objects = hosts.map { host in
                json(host, leases: leases.filter { $0.host == host.name }, health: health[host.name])
            }
            session.console.out(try HostsCommand.jsonText(objects))
            return 0
        }
        guard !hosts.isEmpty else {
            session.console.err("\(session.displayPath(session.hostsFile)) lists no hosts\n")
            return 0
        }
        let rows = hosts.map { host -> [String] in
            let slots = leases.filter { $0.host == host.name && $0.kind == .hostSlot }.count
            return [
                host.name, host.endpoint, "\(host.capacity)", "\(slots)", labels(host.labels), host.trust.rawValue,
                lastCheck(health[host.name]),
            ]
        }
        session.console.out(
            RunsFormatting.table(
                header: ["NAME", "ENDPOINT", "CAPACITY", "IN USE", "LABELS", "TRUST", "LAST CHECK"], rows: rows))
        return 0
    }

    static func labels(_ labels: [String: String]) -> String {
        labels.isEmpty ? "-" : labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    static func lastCheck(_ health: HostHealth?) -> String {
        guard let health else { return "never checked" }
        let when = RunsFormatting.time(health.latest.checkedAt)
        guard !health.isInRotation else { return "usable (\(when) UTC)" }
        return "UNUSABLE (\(when) UTC), out of rotation: \(health.latest.problem ?? "no reason recorded")"
    }

    static func json(_ host: HostConfig, leases: [HostLease], health: HostHealth?) -> [String: Any] {
        [
            "name": host.name, "address": host.address, "port": host.port, "user": host.user,
            "endpoint": host.endpoint, "capacity": host.capacity,
            "leasedSlots": leases.filter { $0.kind == .hostSlot }.count,
            "leases": leases.map { lease -> [String: Any] in
                [
                    "kind": lease.kind.rawValue, "runID": lease.runID,
                    "simulator": RunsJSON.orNull(lease.simulatorUDID),
                    "layer": RunsJSON.orNull(lease.layer), "pid": Int(lease.owner.pid),
                    "ownerHost": lease.owner.hostname, "acquiredAt": UTCTimestamp.iso8601(lease.acquiredAt),
                ]
            },
            "labels": host.labels, "xcodes": host.xcodes, "workDir": host.workDirectory, "trust": host.trust.rawValue,
            "knownHosts": host.knownHostsFile, "identityFile": RunsJSON.orNull(host.identityFile),
            "useAgent": host.useAgent,
            "health": health.map { health -> Any in
                [
                    "checkedAt": UTCTimestamp.iso8601(health.latest.checkedAt), "usable": health.latest.usable,
                    "problem": RunsJSON.orNull(health.latest.problem),
                    "latencySeconds": RunsJSON.orNull(health.latest.latencySeconds),
                    "consecutiveFailures": health.consecutiveFailures,
                    "lastUsableAt": RunsJSON.time(health.lastUsableAt),
                ]
            } ?? NSNull(),
        ]
    }
}

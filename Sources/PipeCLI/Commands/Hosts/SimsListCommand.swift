import Foundation
import PipeCore
import PipeSSH

/// `pipe sims list`: every simulator of every host, by host and runtime, with why an unavailable one cannot be used
/// and which run holds a leased one.
enum SimsListCommand {
    static let spec = CommandSpec(
        name: "list",
        summary: "List every simulator by host and runtime; say why unavailable ones cannot be used.",
        discussion: """
            Connects to each host (all at once; the host key checked first) and lists its simulators with \
            `xcrun simctl list devices -j`, available or not. An unavailable one shows simctl's reason (a deleted \
            runtime, an unsupported device type); one leased by a run in progress shows that run. --json prints a \
            JSON array, one object per simulator (keys: host, platform, runtime, runtimeIdentifier, \
            runtimeVersion, name, udid, state, deviceType, available, unavailableReason, leasedBy).

            Examples:
              pipe sims list
              pipe sims list --host mac-2 --json
            """,
        options: [
            .repeated("host", help: "Only this host (repeat for several; default: every host)."),
            .flag("json", help: "Print a JSON array instead of the table."),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "Every host was listed."),
                    .init("2", "Invalid usage, an unknown host name or an invalid hosts file."),
                    .init("3", "A host could not be reached or listed; the others are still shown."),
                ])
        ])

    /// One host's answer.
    private enum Listing {
        case simulators([Simulator])
        case failed(String)
    }

    static func execute(_ session: HostsSession) throws -> Int32 {
        let hosts = try session.hosts(named: session.arguments.strings("host"))
        let environment = session.environment
        let listings = HostsSession.concurrently(hosts) { host -> Listing in
            do {
                let remote = try SSHRemoteHost(connectingTo: host, environment: environment)
                defer { remote.session.disconnect(description: "pipe sims list is done") }
                switch try HostProbe.listSimulators(on: remote) {
                case .success(let simulators): return .simulators(simulators)
                case .failure(let message): return .failed("host \(host.name): \(message)")
                }
            } catch {
                return .failed("\(error)")
            }
        }
        // Who holds what, so a person sees why a simulator that looks free is not chosen.
        let store = try? session.store
        _ = try? store?.recoverLeases()
        let leases = (try? store?.activeLeases(host: nil)) ?? []
        func leaseHolder(_ host: String, _ udid: String) -> HostLease? {
            leases.first { $0.kind == .simulator && $0.host == host && $0.simulatorUDID == udid.uppercased() }
        }

        var rows: [[String]] = []
        var objects: [[String: Any]] = []
        var failures: [String] = []
        for (host, listing) in zip(hosts, listings) {
            switch listing {
            case .failed(let message):
                failures.append(message)
            case .simulators(let simulators):
                for simulator in simulators {
                    let holder = leaseHolder(host.name, simulator.udid)
                    rows.append([
                        host.name, simulator.runtimeName, simulator.name, simulator.udid, simulator.state,
                        usability(simulator, holder: holder),
                    ])
                    objects.append(json(simulator, host: host.name, holder: holder))
                }
                if simulators.isEmpty { rows.append([host.name, "-", "(no simulators)", "-", "-", "-"]) }
            }
        }
        if session.arguments.flag("json") {
            session.console.out(try HostsCommand.jsonText(objects))
        } else if !rows.isEmpty {
            session.console.out(
                RunsFormatting.table(header: ["HOST", "RUNTIME", "NAME", "UDID", "STATE", "USABLE"], rows: rows))
        }
        for failure in failures { session.console.err("error: \(failure)\n") }
        return failures.isEmpty ? 0 : PipeExitCode.environmentFailure.rawValue
    }

    static func unavailableReason(_ simulator: Simulator) -> String {
        let reason = simulator.availabilityError?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return reason.isEmpty ? "simctl marks it unavailable and gives no reason" : reason
    }

    private static func usability(_ simulator: Simulator, holder: HostLease?) -> String {
        guard simulator.isAvailable else { return "no: " + unavailableReason(simulator) }
        guard let holder else { return "yes" }
        return "yes, in use by run \(holder.runID)" + (holder.layer.map { " (layer \($0))" } ?? "")
    }

    private static func json(_ simulator: Simulator, host: String, holder: HostLease?) -> [String: Any] {
        [
            "host": host, "platform": simulator.platform, "runtime": simulator.runtimeName,
            "runtimeIdentifier": simulator.runtimeIdentifier, "runtimeVersion": simulator.runtimeVersion,
            "name": simulator.name, "udid": simulator.udid, "state": simulator.state,
            "deviceType": RunsJSON.orNull(simulator.deviceTypeIdentifier), "available": simulator.isAvailable,
            "unavailableReason": simulator.isAvailable ? NSNull() : unavailableReason(simulator),
            "leasedBy": RunsJSON.orNull(holder?.runID),
        ]
    }
}

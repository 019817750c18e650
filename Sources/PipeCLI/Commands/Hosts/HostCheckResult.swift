import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// What `pipe hosts check` found on one host: each step's facts, and the problems that make it unusable.
struct HostCheckResult {
    /// The step a problem was found in, in the order they run; its raw value starts the problem's text.
    enum Stage: String {
        case connection = "unreachable"
        case hostKey = "host-key"
        case authentication
        case xcode
        case simulators
        case disk
    }

    struct Problem {
        var stage: Stage
        var message: String

        /// `unreachable: cannot connect to …`, the first line only (host key refusals run over several).
        var summary: String {
            "\(stage.rawValue): " + (message.split(separator: "\n").first.map(String.init) ?? "")
        }
    }

    /// One `xcodes` entry of the hosts file, asked for its version with `DEVELOPER_DIR`.
    struct XcodeEntry {
        var label: String
        var developerDirectory: String
        var version: String?
        var error: String?
    }

    var host: HostConfig
    var checkedAt: Date
    var reachable = false
    var keyType: String?
    var fingerprint: String?
    /// `trusted`, `unknown` or `changed`; `nil` when no key was seen.
    var keyStatus: String?
    /// `nil` when login was not tried (the connection or the host key failed first).
    var authenticated: Bool?
    var connectSeconds: Double?
    var xcode: XcodeVersion?
    var xcodes: [XcodeEntry] = []
    var simulators: [Simulator]?
    /// The folder whose free space was measured: the work folder, or its nearest existing parent.
    var diskFolder: String?
    var freeBytes: Int64?
    /// Round trips of `true`, in seconds.
    var latencies: [Double] = []
    var problems: [Problem] = []
    var warnings: [String] = []

    init(host: HostConfig, checkedAt: Date) {
        self.host = host
        self.checkedAt = checkedAt
    }

    var usable: Bool { problems.isEmpty }

    /// The median round trip.
    var latency: Double? {
        guard !latencies.isEmpty else { return nil }
        let sorted = latencies.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var availableSimulators: [Simulator] { simulators?.filter(\.isAvailable) ?? [] }

    /// Runtimes with their available simulators, e.g. `iOS 17.5 (4)`, in the listing's order.
    var runtimeSummaries: [(name: String, identifier: String, available: Int)] {
        var order: [String] = []
        var counts: [String: (name: String, available: Int)] = [:]
        for simulator in simulators ?? [] {
            if counts[simulator.runtimeIdentifier] == nil {
                order.append(simulator.runtimeIdentifier)
                counts[simulator.runtimeIdentifier] = (simulator.runtimeName, 0)
            }
            if simulator.isAvailable { counts[simulator.runtimeIdentifier]?.available += 1 }
        }
        return order.compactMap { id in counts[id].map { ($0.name, id, $0.available) } }
    }

    /// The record `pipe hosts check` leaves in the run store.
    var healthRecord: HostHealthRecord {
        HostHealthRecord(
            host: host.name, checkedAt: checkedAt, usable: usable, problem: problems.first?.summary,
            latencySeconds: latency, source: "pipe hosts check")
    }

    /// The `--json` form: every key present (`null` when unknown).
    var json: [String: Any] {
        func orNull(_ value: Any?) -> Any { value ?? NSNull() }
        return [
            "name": host.name, "endpoint": host.endpoint, "checkedAt": UTCTimestamp.iso8601(checkedAt),
            "usable": usable, "problems": problems.map { ["stage": $0.stage.rawValue, "message": $0.message] },
            "warnings": warnings, "reachable": reachable,
            "hostKey": keyType == nil
                ? NSNull()
                : ["type": orNull(keyType), "fingerprint": orNull(fingerprint), "status": orNull(keyStatus)],
            "authenticated": orNull(authenticated), "connectSeconds": orNull(connectSeconds),
            "xcode": xcode.map { ["version": $0.version.description, "build": orNull($0.build)] } ?? NSNull(),
            "xcodes": xcodes.map {
                [
                    "label": $0.label, "developerDir": $0.developerDirectory, "version": orNull($0.version),
                    "error": orNull($0.error),
                ]
            },
            "runtimes": simulators == nil
                ? NSNull()
                : runtimeSummaries.map {
                    ["name": $0.name, "identifier": $0.identifier, "availableSimulators": $0.available]
                },
            "simulators": simulators == nil
                ? NSNull()
                : [
                    "available": availableSimulators.count,
                    "unavailable": (simulators?.count ?? 0)
                        - availableSimulators.count,
                ],
            "disk": freeBytes == nil ? NSNull() : ["folder": orNull(diskFolder), "freeBytes": orNull(freeBytes)],
            "latencySeconds": orNull(latency), "latencySamples": latencies,
            "capacity": host.capacity, "labels": host.labels,
        ]
    }
}

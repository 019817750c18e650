import Foundation
import PipeCore

/// `pipe hosts check [host…]`: whether each host can take a run now, and why not.
enum HostsCheckCommand {
    static let spec = CommandSpec(
        name: "check",
        summary: "Check hosts: connection, host key, login, Xcode, simulators, free disk, latency.",
        discussion: """
            Connects to each host (all of them at once) as a run would: the host key checked against its \
            known_hosts file, then the login. Then it asks for `xcodebuild -version` (and each Xcode of `xcodes` \
            with DEVELOPER_DIR), lists the simulators (`xcrun simctl list devices -j`), measures the free disk in \
            the work folder (`df -P -k`) and the median round trip of five `true` commands. A host is unusable when \
            a step fails, when it has no available simulator, or with less than 2 GB free.

            Every check is recorded in the run store: a host whose latest check failed is out of rotation (runs \
            do not choose it) until a check passes again. --json prints a JSON array, one object per host (keys: \
            name, endpoint, checkedAt, usable, problems [{stage, message}], warnings, reachable, hostKey {type, \
            fingerprint, status}, authenticated, connectSeconds, xcode {version, build}, xcodes, runtimes \
            [{name, identifier, availableSimulators}], simulators {available, unavailable}, disk {folder, \
            freeBytes}, latencySeconds, latencySamples, capacity, labels).

            Examples:
              pipe hosts check
              pipe hosts check mac-1 mac-2 --json
            """,
        arguments: [.variadic("host", help: "Hosts to check (default: every host of the hosts file).")],
        options: [.flag("json", help: "Print a JSON array instead of the table.")],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "Every host checked is usable."),
                    .init("2", "Invalid usage, an unknown host name or an invalid hosts file."),
                    .init("3", "A host is unusable; the output says which step failed and why."),
                ])
        ])

    static func execute(_ session: HostsSession) throws -> Int32 {
        let hosts = try session.hosts(named: session.arguments.variadic("host"))
        let environment = session.environment
        let results = HostsSession.concurrently(hosts) { HostProbe.check($0, environment: environment) }

        // Recorded before shown, like every state change: a host found unusable is out of rotation at once.
        var storeProblem: String?
        do {
            let store = try session.store
            for result in results { try store.recordHealth(result.healthRecord) }
        } catch {
            storeProblem = "the checks could not be recorded in the run store: \(error)"
        }

        if session.arguments.flag("json") {
            session.console.out(try HostsCommand.jsonText(results.map(\.json)))
        } else {
            session.console.out(table(results))
            for result in results { session.console.out(details(result)) }
        }
        if let storeProblem { session.console.err("warning: \(storeProblem)\n") }
        let unusable = results.filter { !$0.usable }
        guard unusable.isEmpty else {
            let names = unusable.map { result in
                "\(result.host.name) (\(Set(result.problems.map(\.stage.rawValue)).sorted().joined(separator: ", ")))"
            }
            session.console.err(
                "error: \(unusable.count) of \(results.count) host\(results.count == 1 ? "" : "s") unusable: "
                    + names.joined(separator: ", ") + (session.arguments.flag("json") ? "" : "; see above") + "\n")
            return PipeExitCode.environmentFailure.rawValue
        }
        return 0
    }

    static func table(_ results: [HostCheckResult]) -> String {
        let rows = results.map { result -> [String] in
            let runtimes = result.runtimeSummaries.filter { $0.available > 0 }.map { "\($0.name) (\($0.available))" }
            return [
                result.host.name, result.usable ? "usable" : "UNUSABLE", result.host.endpoint,
                result.xcode?.description ?? "-",
                result.simulators == nil ? "-" : (runtimes.isEmpty ? "none" : runtimes.joined(separator: ", ")),
                result.freeBytes.map(RunsFormatting.bytes) ?? "-",
                result.latency.map(HostsCheckCommand.milliseconds) ?? "-",
            ]
        }
        return RunsFormatting.table(
            header: ["HOST", "STATUS", "ENDPOINT", "XCODE", "RUNTIMES (AVAILABLE SIMULATORS)", "DISK FREE", "LATENCY"],
            rows: rows)
    }

    /// The lines under the table for one host: its key and login, then each problem in full, then warnings.
    static func details(_ result: HostCheckResult) -> String {
        let name = result.host.name
        var lines: [String] = []
        if let type = result.keyType, let fingerprint = result.fingerprint {
            var line = "\(name): \(type) host key \(fingerprint) \(result.keyStatus ?? "seen")"
            if result.authenticated == true {
                line += "; logged in as \(result.host.user)"
                if let seconds = result.connectSeconds { line += String(format: " in %.2f s", seconds) }
            }
            lines.append(line)
        }
        for problem in result.problems {
            let text = problem.message.split(separator: "\n", omittingEmptySubsequences: false)
                .joined(separator: "\n    ")
            lines.append("\(name): \(problem.stage.rawValue): \(text)")
        }
        for warning in result.warnings { lines.append("\(name): warning: \(warning)") }
        return lines.map { $0 + "\n" }.joined()
    }

    static func milliseconds(_ seconds: Double) -> String {
        seconds < 0.01 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.0f ms", seconds * 1000)
    }
}

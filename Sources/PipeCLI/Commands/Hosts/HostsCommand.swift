import Foundation
import PipeCore

/// `pipe hosts …`: the Mac hosts of the hosts file — inventory, health, trust and clean-up.
enum HostsCommand {
    /// `--hosts-file`, shared by `pipe hosts …` and `pipe sims …`.
    static let hostsFileOption = OptionSpec.value(
        "hosts-file", valueName: "path", help: "The hosts file (default: .pipe/hosts.yml).")

    static let spec = CommandSpec(
        name: "hosts",
        summary: "List, check, trust and clean up the Mac hosts of the hosts file.",
        discussion: """
            The hosts file (.pipe/hosts.yml, or --hosts-file) names the Macs Pipe may use, with their labels and \
            capacity (docs/pipeline-format.md). Runs lease a slot of a host and a simulator in the run store, so \
            several `pipe` processes never put more runs on a host than its capacity, nor two runs on one \
            simulator. `pipe hosts check` records each host's health there: a host whose latest check failed is \
            out of rotation until a check passes again.
            """,
        options: [hostsFileOption],
        subcommands: [HostsListCommand.spec, HostsCheckCommand.spec, HostsTrustCommand.spec, HostsCleanCommand.spec])

    /// Runs `pipe hosts <path[1]>`.
    static func execute(_ path: [String], _ context: CommandContext) throws -> Int32 {
        let session = try HostsSession(context)
        do {
            switch path.dropFirst().first {
            case "list": return try HostsListCommand.execute(session)
            case "check": return try HostsCheckCommand.execute(session)
            case "trust": return try HostsTrustCommand.execute(session)
            case "clean": return try HostsCleanCommand.execute(session)
            default:
                context.console.err("error: '\(path.joined(separator: " "))' has no implementation\n")
                return PipeExitCode.usage.rawValue
            }
        } catch let error as HostsFileInvalid {
            context.console.err(error.description + "\n")
            return PipeExitCode.usage.rawValue
        }
    }

    /// `RunsJSON.text`, with every empty array written `[]` (Foundation on Linux spreads one over three lines).
    static func jsonText(_ value: Any) throws -> String {
        let text = try RunsJSON.text(value)
        // JSON strings hold no raw newline, so a `[` followed only by blank lines up to `]` is an empty array.
        return text.replacingOccurrences(of: #"\[\n\s*\n\s*\]"#, with: "[]", options: .regularExpression)
    }
}

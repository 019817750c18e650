import Foundation
import PipeCore

/// `pipe sims …`: the simulators of the hosts.
enum SimsCommand {
    static let spec = CommandSpec(
        name: "sims",
        summary: "List the simulators of every host, and why unavailable ones cannot be used.",
        options: [HostsCommand.hostsFileOption],
        subcommands: [SimsListCommand.spec])

    /// Runs `pipe sims <path[1]>`.
    static func execute(_ path: [String], _ context: CommandContext) throws -> Int32 {
        let session = try HostsSession(context)
        do {
            switch path.dropFirst().first {
            case "list": return try SimsListCommand.execute(session)
            default:
                context.console.err("error: '\(path.joined(separator: " "))' has no implementation\n")
                return PipeExitCode.usage.rawValue
            }
        } catch let error as HostsFileInvalid {
            context.console.err(error.description + "\n")
            return PipeExitCode.usage.rawValue
        }
    }
}

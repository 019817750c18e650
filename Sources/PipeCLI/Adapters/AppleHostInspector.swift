import Foundation
import PipeApple
import PipeCore

/// The engine's `HostInspector`: asks the host's `xcrun simctl` and `xcodebuild`, reads the answers with
/// `PipeApple`.
struct AppleHostInspector: HostInspector {
    let simulatorListCommand = "xcrun simctl list devices available -j"

    func readSimulators(_ output: CapturedOutput, host: String) throws -> [Simulator] {
        guard output.exit == .exited(0) else {
            throw ConfigurationError(
                "host \(host): `\(simulatorListCommand)` failed (\(output.exit.artifactText)): "
                    + output.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
                    + "; check that Xcode and its simulator runtimes are installed")
        }
        do {
            return try SimctlListParser.parse(output.stdout)
        } catch {
            throw ConfigurationError("host \(host): the simulator list could not be read: \(error)")
        }
    }

    func choose(
        _ criteria: SimulatorCriteria, among simulators: [Simulator], excluding: Set<String>, udidSource: String
    ) throws -> SimulatorChoice {
        do {
            return try SimulatorSelector.choose(
                from: simulators.filter { !excluding.contains($0.udid) }, criteria: criteria, udidSource: udidSource)
        } catch let error as SimulatorSelectionError {
            throw ConfigurationError(error.description)
        }
    }

    func createSimulator(_ criteria: SimulatorCriteria, on host: RemoteHost) throws -> String {
        let listing = try host.capture(SimulatorCreation.listCommand, timeoutSeconds: 120)
        guard listing.exit == .exited(0) else {
            throw ConfigurationError(
                "host \(host.name): `\(SimulatorCreation.listCommand)` failed (\(listing.exit.artifactText)): "
                    + listing.stderrText.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        do {
            let plan = try SimulatorCreation.plan(for: criteria, listing: listing.stdout)
            let output = try host.capture(plan.command, timeoutSeconds: 120)
            return try SimulatorCreation.readCreated(output)
        } catch let error as SimulatorCreation.Failure {
            throw ConfigurationError("host \(host.name): \(error.message)")
        }
    }

    func deleteSimulator(udid: String, on host: RemoteHost) throws {
        let command = SimulatorCreation.deleteCommand(udid: udid)
        let output = try host.capture(command, timeoutSeconds: 120)
        guard output.exit == .exited(0) || SimulatorCreation.isAlreadyGone(output) else {
            throw ConfigurationError(
                "host \(host.name): `\(command)` failed (\(output.exit.artifactText)): "
                    + output.stderrText.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    let xcodeVersionCommand = "xcodebuild -version"

    func readXcodeVersion(_ output: CapturedOutput) throws -> String {
        try XcodeVersion.parse(output.stdoutText).description
    }
}

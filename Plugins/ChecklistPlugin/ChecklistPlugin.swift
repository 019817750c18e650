import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// The `checklist` layer: a **manual** check, never a timed automated wait.
///
/// It prepares what the tester needs — optionally installs the built app on the chosen simulator
/// (`simctl boot`, then `simctl bootstatus -b` under the `boot-timeout` deadline; `simctl install`) and launches it (`simctl launch`) — and writes the checklist
/// (`checklist.md` and `checklist.json`) into the layer's artifacts: the items from the pipeline, the host and
/// simulator (UDID, name, runtime) or the device to use, what was installed and launched, the fields to record and
/// the exact `pipe signoff` command. The layer then stays `awaiting-signoff` until someone signs it.
public struct ChecklistPlugin: LayerPlugin {
    public static let kind = "checklist"
    public static let defaultGate = Gate.release
    public static let needsSimulator = true
    public static let settings: [SettingSchema] = [
        SettingSchema("items", .strings, required: true, "What the tester does and checks, in order."),
        SettingSchema("fields", .strings, "Fields every sign-off must give, e.g. [os_version, app_build]."),
        SettingSchema("fields-on-fail", .strings, "Fields a `fail` sign-off must also give, e.g. [steps]."),
        SettingSchema("on", .string, "Where the checks are made: `simulator` (default) or `device`."),
        SettingSchema("install", .string, "An .app bundle in the workspace to install on the chosen simulator."),
        SettingSchema("launch", .string, "A bundle identifier to launch on the chosen simulator (after `install`)."),
        SettingSchema(
            "boot-timeout", .integer,
            "Seconds the simulator may take to boot before `install`/`launch` (default 120); a boot that fails or "
                + "takes longer is an infrastructure failure, retried on another simulator."),
    ]

    /// File names inside the layer's artifacts folder.
    public enum ArtifactName {
        public static let markdown = "checklist.md"
        public static let json = "checklist.json"
    }

    public init() {}

    public func run(_ context: LayerContext) throws -> LayerResult {
        let settings: ChecklistSettings
        do {
            settings = try ChecklistSettings(layer: context.layer)
        } catch {
            return LayerResult(outcome: .pluginError, evidence: [error.description])
        }
        var facts: [String: String] = ["items": "\(settings.items.count)", "on": settings.target.rawValue]
        var installed: String?
        var launched: ChecklistDocument.Launch?
        var problem: String?
        var evidence: [String] = []
        if settings.target == .simulator, let simulator = context.simulator {
            facts["simulatorUDID"] = simulator.udid
            do {
                if settings.install != nil || settings.launch != nil {
                    try boot(simulator, timeoutSeconds: settings.bootTimeoutSeconds, context: context)
                }
                if let app = settings.install {
                    installed = try install(app, on: simulator, context: context)
                    facts["installed"] = installed
                }
                if let bundleID = settings.launch {
                    launched = try launch(bundleID, on: simulator, context: context)
                    facts["launched"] = bundleID
                    if let pid = launched?.processID { facts["launchedProcessID"] = pid }
                }
            } catch let failure as PreparationFailure {
                problem = failure.message
                evidence.append(failure.message)
            } catch let failure as BootFailure {
                // The device, not the build or the host's setup, failed: the engine retries on another simulator.
                return LayerResult(outcome: .infrastructure, evidence: [failure.message], facts: facts)
            }
        }

        let document = ChecklistDocument(
            runID: context.runID, pipeline: context.pipelineName, layer: context.layer.name, gate: context.layer.gate,
            settings: settings, host: context.hostName, simulator: context.simulator, installed: installed,
            launched: launched, problem: problem, preparedAt: Date())
        let markdownURL = context.localArtifacts.appendingPathComponent(ArtifactName.markdown)
        let jsonURL = context.localArtifacts.appendingPathComponent(ArtifactName.json)
        try Data(document.markdown.utf8).write(to: markdownURL)
        try document.jsonData().write(to: jsonURL)
        let artifacts = try [markdownURL, jsonURL].map { url in
            let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
            return ArtifactRecord(
                kind: .checklist, path: context.projectRelativePath(url), bytes: size,
                sha256: try SHA256Digest.hex(ofFile: url))
        }
        if problem != nil {
            // The tester cannot start: the host or the build did not give what the checklist needs.
            return LayerResult(outcome: .hostConfig, evidence: evidence, artifacts: artifacts, facts: facts)
        }
        evidence.append(
            "\(settings.items.count) checks in \(context.projectRelativePath(markdownURL)); "
                + (settings.target == .device
                    ? "on a physical device"
                    : "on \(context.simulator?.summary ?? "the host's simulator") at \(context.hostName)"))
        evidence.append("sign off with: \(document.signoffCommands.pass)")
        return LayerResult(outcome: .awaitingSignoff, evidence: evidence, artifacts: artifacts, facts: facts)
    }

    // MARK: - Preparing the simulator

    private struct PreparationFailure: Error {
        var message: String
    }

    private struct BootFailure: Error {
        var message: String
    }

    /// Boots `simulator` (already booted is fine) and waits until it is usable, within `timeoutSeconds`.
    private func boot(_ simulator: Simulator, timeoutSeconds: Int, context: LayerContext) throws {
        let deadline = Date().addingTimeInterval(Double(timeoutSeconds))
        let steps: [(String, (CapturedOutput) -> SimulatorBoot.Result)] = [
            (SimulatorBoot.bootCommand(udid: simulator.udid), SimulatorBoot.readBoot),
            (SimulatorBoot.bootStatusCommand(udid: simulator.udid), SimulatorBoot.readBootStatus),
        ]
        for (command, read) in steps {
            if let reason = context.cancellation.cancellationReason { throw PreparationFailure(message: reason) }
            let remaining = deadline.timeIntervalSinceNow
            var result = SimulatorBoot.Result.timedOut
            if remaining > 0 {
                context.events.emit(.remoteCommand(layer: context.layer.name, command: command))
                result = read(try context.host.capture(command, stdin: nil, timeoutSeconds: remaining))
            }
            switch result {
            case .booted, .alreadyBooted: continue
            case .timedOut:
                throw BootFailure(
                    message: "simulator \(simulator.summary) did not boot within \(timeoutSeconds) s (`\(command)` on "
                        + "\(context.hostName)); raise `boot-timeout` or check the host with `pipe hosts check`")
            case .failed(let said):
                throw BootFailure(
                    message: "could not boot simulator \(simulator.summary): `\(command)` on \(context.hostName) "
                        + "ended with \(said)")
            }
        }
    }

    /// Installs `app` on the (booted) simulator; returns the path installed, as the host sees it.
    private func install(_ app: String, on simulator: Simulator, context: LayerContext) throws -> String {
        let path = app.hasPrefix("/") ? app : context.remoteWorkspace + "/" + app
        try step(
            ["xcrun", "simctl", "install", simulator.udid, path], timeout: 600,
            failure: "could not install \(app) on \(simulator.summary) (is the app built into the workspace at "
                + "that path?)", context: context)
        return path
    }

    private func launch(_ bundleID: String, on simulator: Simulator, context: LayerContext) throws
        -> ChecklistDocument.Launch
    {
        let output = try step(
            ["xcrun", "simctl", "launch", simulator.udid, bundleID], timeout: 120,
            failure: "could not launch \(bundleID) on \(simulator.summary)", context: context)
        // `simctl launch` prints `<bundle id>: <pid>`.
        let pid = output.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return ChecklistDocument.Launch(bundleID: bundleID, processID: pid.flatMap { Int($0) }.map { "\($0)" })
    }

    @discardableResult
    private func step(_ arguments: [String], timeout: Double, failure: String, context: LayerContext) throws
        -> String
    {
        if let reason = context.cancellation.cancellationReason { throw PreparationFailure(message: reason) }
        let command = ShellQuote.join(arguments)
        context.events.emit(.remoteCommand(layer: context.layer.name, command: command))
        let output = try context.host.capture(command, stdin: nil, timeoutSeconds: timeout)
        guard output.exit == .exited(0) else {
            let stderr = output.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
            let said = stderr.isEmpty ? output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) : stderr
            throw PreparationFailure(
                message: "\(failure): `\(command)` on \(context.hostName) ended with \(output.exit.artifactText)"
                    + (said.isEmpty ? "" : ": \(said.split(separator: "\n").prefix(6).joined(separator: " / "))"))
        }
        return output.stdoutText
    }
}

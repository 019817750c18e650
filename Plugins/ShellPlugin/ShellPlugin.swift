import Foundation
import PipeBasics
import PipeCore

/// The `shell` layer: one command on the host, in the run's workspace, whose exit code is the verdict.
///
/// For checks the other plugins do not cover (a script in the repository, `plutil -lint`, a size budget). The
/// command runs as `/bin/sh -c '<command>'` in its own process group through `RemoteHost.runStoppable`, so the
/// layer's `timeout:` and Ctrl-C kill everything it started. Its output goes to `shell.log` and its exit to
/// `exit-code` in the layer's artifacts.
///
/// The command is a shell command setting: its `${name}` became `"$PIPE_PARAM_name"` when the pipeline was loaded,
/// and the values reach the command as those environment variables (`CommandEnvironment`), never in its text.
///
/// Verdicts: exit 0 is `passed`; any other exit, or a signal, is `tests-failed` (the check ran and said no), with the
/// exit and the last lines of output as evidence; 126 and 127 (the shell could not find or execute the command) are
/// `host-config`, because the host lacks what the command needs; a timeout is `timed-out`; a lost connection is
/// `infrastructure`.
public struct ShellPlugin: LayerPlugin {
    public static let kind = "shell"
    public static let defaultGate = Gate.merge
    public static let needsSimulator = false
    public static let settings: [SettingSchema] = [
        SettingSchema(
            "command", .string, required: true, shellCommand: true,
            "A POSIX shell command, run with /bin/sh -c in the workspace on the host; exit 0 passes. Each ${name} "
                + "in it is the value as one word (\"$PIPE_PARAM_name\"), never shell code.")
    ]

    /// File names inside the layer's artifacts folder.
    public enum ArtifactName {
        public static let exitCode = "exit-code"
        public static let log = "shell.log"
    }

    /// How many of the last output lines become evidence of a failure.
    static let evidenceLines = 10

    public init() {}

    public func run(_ context: LayerContext) throws -> LayerResult {
        let layerName = context.layer.name
        guard let command = context.layer.settings["command"]?.stringValue,
            !command.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else {
            return LayerResult(outcome: .pluginError, evidence: ["layer \(layerName): `command` is empty"])
        }
        let (line, stdin) = try Self.commandLine(
            command, workspace: context.remoteWorkspace, parameters: context.layer.shellParameters)
        context.events.emit(.remoteCommand(layer: layerName, command: "/bin/sh -c \(ShellQuote.quote(command))"))

        let logURL = context.localArtifacts.appendingPathComponent(ArtifactName.log)
        let log = try LayerLog(
            url: logURL, layer: layerName, events: context.events, limitBytes: context.layer.logLimitBytes,
            redactor: context.redactor)
        var tail = OutputTail(keeping: Self.evidenceLines)
        var processGroup: RemoteProcessGroup?
        let exit = try context.host.runStoppable(
            line, stdin: stdin, timeoutSeconds: context.layer.timeoutSeconds, cancellation: context.cancellation,
            onStarted: { group in
                processGroup = group
                context.events.emit(
                    .remoteProcessStarted(layer: layerName, host: context.hostName, processGroup: group.id))
            },
            onStdout: { chunk in
                log.stdout(chunk)
                tail.append(chunk)
            },
            onStderr: { chunk in
                log.stderr(chunk)
                tail.append(chunk)
            })
        log.finish()

        let exitURL = context.localArtifacts.appendingPathComponent(ArtifactName.exitCode)
        try Data((exit.artifactText + "\n").utf8).write(to: exitURL)
        let artifacts = [
            try record(.exitCode, exitURL, context),
            try record(.log, logURL, context),
        ]
        var facts = ["command": command]
        if let processGroup { facts["remoteProcessGroup"] = "\(processGroup.id)" }
        let (outcome, summary) = Self.verdict(exit, timeout: context.layer.timeoutSeconds)
        var evidence = [summary]
        if outcome != .passed && outcome != .cancelled {
            evidence += tail.lines.map { "  \($0)" }
        }
        return LayerResult(outcome: outcome, evidence: evidence, exit: exit, artifacts: artifacts, facts: facts)
    }

    /// The line that runs `command` in `workspace` with `/bin/sh -c`, its output and errors on one stream, and the
    /// stdin that hands it `parameters` (environment variable → value).
    static func commandLine(
        _ command: String, workspace: String, parameters: [String: String]
    ) throws(RequestError) -> (line: String, stdin: Data?) {
        let environment = try CommandEnvironment(parameters)
        let run = environment.isEmpty ? "/bin/sh -c \(ShellQuote.quote(command))" : environment.wrap(command).command
        return ("cd \(ShellQuote.quote(workspace)) && \(run) 2>&1", environment.wrap(command).stdin)
    }

    /// The outcome for how the command ended, and one line saying why.
    static func verdict(_ exit: RemoteExit, timeout: Double?) -> (LayerOutcome, String) {
        switch exit {
        case .exited(0):
            return (.passed, "the command exited 0")
        case .exited(let code) where code == 126 || code == 127:
            return (
                .hostConfig,
                "the command exited \(code): the host's shell could not "
                    + (code == 127 ? "find" : "execute") + " what it runs; install it on the host or fix the command"
            )
        case .exited(let code):
            return (.testsFailed, "the command exited \(code)")
        case .signaled(let signal):
            return (.testsFailed, "the command was killed by signal \(signal)")
        case .timedOut:
            return (.timedOut, "the command ran past the layer's timeout" + (timeout.map { " (\(Int($0)) s)" } ?? ""))
        case .cancelled:
            return (.cancelled, "cancelled while the command ran")
        case .lost(let reason):
            return (.infrastructure, "the connection to the host was lost while the command ran: \(reason)")
        }
    }

    private func record(_ kind: ArtifactRecord.Kind, _ url: URL, _ context: LayerContext) throws -> ArtifactRecord {
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        return ArtifactRecord(
            kind: kind, path: context.projectRelativePath(url), bytes: size, sha256: try SHA256Digest.hex(ofFile: url))
    }
}

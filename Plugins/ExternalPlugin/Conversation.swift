import Foundation
import PipeBasics
import PipeCore

/// One layer's exchange with its external plugin: what it wrote, kept in the artifacts as it arrives, and what it
/// means for the layer.
final class Conversation {
    private let context: LayerContext
    private let executable: URL
    private let timeout: Double
    /// The version the plugin declared; its messages must carry this one.
    private let protocolVersion: Int
    private let stderrLog: LayerLog
    private let transcript: LayerLog
    private let log: LayerLog
    private var stderrTail = Data()
    private var tests: [TestCaseResult] = []
    private var result: ExternalPluginResult?
    private var lineNumber = 0
    private var hostCommands = 0

    /// How much of the end of stderr is kept in memory for the evidence (the file has all of it).
    private static let stderrTailBytes = 8 * 1024

    init(context: LayerContext, executable: URL, timeout: Double, protocolVersion: Int) throws {
        self.context = context
        self.protocolVersion = protocolVersion
        self.executable = executable
        self.timeout = timeout
        // Each file is capped at the layer's log limit: a plugin relays what the host printed.
        func open(_ name: String, showsLive: Bool) throws -> LayerLog {
            try LayerLog(
                url: context.localArtifacts.appendingPathComponent(name), layer: context.layer.name,
                events: context.events, limitBytes: context.layer.logLimitBytes, redactor: context.redactor,
                showsLive: showsLive)
        }
        stderrLog = try open(ExternalLayerPlugin.ArtifactName.stderr, showsLive: true)
        transcript = try open(ExternalLayerPlugin.ArtifactName.stdout, showsLive: false)
        log = try open(ExternalLayerPlugin.ArtifactName.log, showsLive: true)
    }

    func close() {
        for file in [stderrLog, transcript, log] { file.finish() }
    }

    func stderr(_ chunk: Data) {
        stderrLog.stderr(chunk)
        stderrTail.append(chunk)
        if stderrTail.count > Self.stderrTailBytes { stderrTail = stderrTail.suffix(Self.stderrTailBytes) }
    }

    /// Handles one stdout line; a protocol violation stops the plugin.
    func handle(line: String, deadline: Date) -> PluginProcess.LineResponse {
        lineNumber += 1
        transcript.stdout(Data((line + "\n").utf8))
        if line.trimmingCharacters(in: .whitespaces).isEmpty { return .carryOn }
        let message: ExternalPluginMessage
        do {
            message = try ExternalPluginMessage.parse(line, version: protocolVersion)
        } catch {
            return .stop("stdout line \(lineNumber): \(error.message)")
        }
        if result != nil {
            return .stop("stdout line \(lineNumber): a message after the result; the result must be the last line")
        }
        switch message {
        case .log(let text):
            log.stdout(Data((text + "\n").utf8))
        case .test(let test):
            tests.removeAll { $0.identifier == test.identifier }
            tests.append(test)
            context.events.emit(.testFinished(layer: context.layer.name, result: test))
        case .hostCommand(let id, let argv, let requested):
            let remaining = deadline.timeIntervalSinceNow
            return .reply(runOnHost(id: id, argv: argv, timeout: max(1, min(requested, remaining))))
        case .result(let value):
            result = value
        }
        return .carryOn
    }

    /// Runs a plugin's host command in the run's workspace and returns the reply line.
    private func runOnHost(id: String, argv: [String], timeout: Double) -> Data {
        hostCommands += 1
        context.events.emit(.remoteCommand(layer: context.layer.name, command: ShellQuote.join(argv)))
        var reply: [String: Any] = ["type": "host-command-result", "id": id]
        do {
            // The values a shell-command setting refers to (`"$PIPE_PARAM_x"`) reach every host command of the layer.
            let (line, stdin) = try CommandEnvironment(context.layer.shellParameters).wrap(ShellQuote.join(argv))
            let command = "cd \(ShellQuote.quote(context.remoteWorkspace)) && \(line)"
            let output = try context.host.capture(command, stdin: stdin, timeoutSeconds: timeout)
            switch output.exit {
            case .exited(let code): reply["exit"] = Int(code)
            case .signaled(let signal): reply["signal"] = signal
            default: reply["error"] = "the command ended: \(output.exit.artifactText)"
            }
            reply["stdout"] = output.stdoutText
            reply["stderr"] = output.stderrText
        } catch {
            reply["error"] = "\(error)"
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"type":"host-command-result","error":"the reply could not be encoded"}"#.utf8)
        return data + Data("\n".utf8)
    }

    /// The layer's result for how the conversation ended.
    func finish(_ ending: PluginProcess.Ending) -> LayerResult {
        let name = executable.lastPathComponent
        switch ending {
        case .cancelled:
            return layerResult(
                outcome: .cancelled,
                evidence: ["\(name) was stopped: \(context.cancellation.cancellationReason ?? "cancelled")"])
        case .timedOut:
            return failure([
                "\(name) did not finish within the layer's timeout (\(Self.seconds(timeout))); its process group was "
                    + "killed"
            ])
        case .stopped(let reason):
            return failure(["\(name) broke the plugin protocol: \(reason); it was stopped"])
        case .signaled(let signal):
            return failure(["\(name) crashed: killed by signal \(signal)" + (signal == SIGKILL ? " (KILL)" : "")])
        case .exited(let code):
            guard let result else {
                return failure(["\(name) exited \(code) without writing a result"])
            }
            guard code == 0 else {
                return failure([
                    "\(name) exited \(code) after its result; a plugin exits 0 and says its verdict in the result"
                ])
            }
            var artifacts: [ArtifactRecord] = []
            for artifact in result.artifacts {
                switch record(artifact) {
                case .success(let record): artifacts.append(record)
                case .failure(let problem): return failure([problem.description])
                }
            }
            var evidence = result.evidence
            if evidence.isEmpty { evidence = ["\(name) reported \(result.outcome.rawValue)"] }
            return layerResult(outcome: result.outcome, evidence: evidence, facts: result.facts, extra: artifacts)
        }
    }

    /// A `plugin-error` with `evidence` and the end of the plugin's stderr.
    func failure(_ evidence: [String]) -> LayerResult {
        let lines = String(decoding: stderrTail, as: UTF8.self).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.suffix(8)
        let stderrPath = context.projectRelativePath(
            context.localArtifacts.appendingPathComponent(ExternalLayerPlugin.ArtifactName.stderr))
        var all = evidence
        if lines.isEmpty {
            all.append("the plugin wrote nothing on stderr")
        } else {
            all.append("its stderr ends (all of it in \(stderrPath)):")
            all += lines.map { "  \($0)" }
        }
        return layerResult(outcome: .pluginError, evidence: all)
    }

    private func layerResult(
        outcome: LayerOutcome, evidence: [String], facts: [String: String] = [:], extra: [ArtifactRecord] = []
    ) -> LayerResult {
        for file in [stderrLog, transcript, log] { file.finish() }
        var allFacts = facts
        allFacts["plugin"] = executable.path
        allFacts["pluginProtocol"] = "\(protocolVersion)"
        if hostCommands > 0 { allFacts["hostCommands"] = "\(hostCommands)" }
        var artifacts: [ArtifactRecord] = []
        for (name, kind) in [
            (ExternalLayerPlugin.ArtifactName.stderr, ArtifactRecord.Kind.log),
            (ExternalLayerPlugin.ArtifactName.stdout, .other), (ExternalLayerPlugin.ArtifactName.log, .log),
        ] {
            let url = context.localArtifacts.appendingPathComponent(name)
            let size = Self.size(of: url)
            // The stderr file is always kept (it is the evidence of a failure); the others only when written.
            if name == ExternalLayerPlugin.ArtifactName.stderr || (size ?? 0) > 0 {
                artifacts.append(
                    ArtifactRecord(
                        kind: kind, path: context.projectRelativePath(url), bytes: size,
                        sha256: try? SHA256Digest.hex(ofFile: url)))
            } else {
                try? FileManager.default.removeItem(at: url)
            }
        }
        return LayerResult(
            outcome: outcome, evidence: evidence, tests: tests, artifacts: artifacts + extra, facts: allFacts)
    }

    /// An artifact the result lists: inside the layer's folder, and there.
    private func record(_ artifact: ExternalPluginResult.Artifact) -> Result<ArtifactRecord, ArtifactProblem> {
        let folder = context.localArtifacts.standardizedFileURL
        let url = folder.appendingPathComponent(artifact.path).standardizedFileURL
        guard !artifact.path.hasPrefix("/"), url.path.hasPrefix(folder.path + "/") else {
            return .failure(
                ArtifactProblem(
                    "the result lists artifact '\(artifact.path)', which is outside the layer's artifacts folder; "
                        + "write artifacts into local.artifacts and list them relative to it"))
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            return .failure(ArtifactProblem("the result lists artifact '\(artifact.path)', which does not exist"))
        }
        let digest = try? SHA256Digest.hex(ofFile: url)
        return .success(
            ArtifactRecord(
                kind: artifact.kind, path: context.projectRelativePath(url), bytes: Self.size(of: url), sha256: digest))
    }

    private static func size(of url: URL) -> Int64? {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

/// An artifact listed by a plugin's result that cannot be recorded.
struct ArtifactProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// One xcodebuild run on the host, its output streamed into a log on the coordinator (redacted as it is written
/// and shown) and parsed as it arrives: the layer's own `test` / `test-without-building`, or a shared
/// `build-for-testing`.
struct XcodebuildInvocation {
    var exit: RemoteExit
    var facts: XcodebuildLogFacts
    var tests: [TestCaseResult]
    /// Failed runs of tests that ran again later in the same log (Xcode's `-retry-tests-on-failure`).
    var earlierRuns: [TestCaseResult] = []
    var processGroup: RemoteProcessGroup?

    /// Runs `command` in the uploaded workspace; the secrets of the layer reach the test process as
    /// `TEST_RUNNER_<NAME>` over stdin.
    ///
    /// - Parameters:
    ///   - layerName: the layer whose events carry the output.
    ///   - log: the file the output goes to (created; an existing one is replaced).
    static func run(
        _ command: XcodebuildCommand, layerName: String, log logURL: URL, timeoutSeconds: Double?,
        context: LayerContext
    ) throws -> XcodebuildInvocation {
        // xcodebuild hands `TEST_RUNNER_<NAME>` to the test process as `<NAME>`; the values travel on stdin.
        let delivery = try SecretDelivery.wrap(
            "cd \(ShellQuote.quote(context.remoteWorkspace)) && \(command.shellLine) 2>&1",
            secrets: context.secrets, exportName: { "TEST_RUNNER_\($0)" })
        context.events.emit(.remoteCommand(layer: layerName, command: command.shellLine))
        let log = try LayerLog(
            url: logURL, layer: layerName, events: context.events, limitBytes: context.layer.logLimitBytes,
            redactor: context.redactor)
        let parser = XcodebuildLogParser()
        // The same collector as `pipe report`'s, so a log names and counts its tests the same in both.
        var tests = XcodebuildTestCollector()
        var processGroup: RemoteProcessGroup?
        let handleEvents = { (events: [XcodebuildLogEvent]) in
            for event in events {
                if case .testFinished(let result, let origin) = event, tests.record(result, origin: origin) {
                    context.events.emit(.testFinished(layer: layerName, result: result))
                }
            }
        }
        let exit = try context.host.runStoppable(
            delivery.command, stdin: delivery.stdin, timeoutSeconds: timeoutSeconds,
            cancellation: context.cancellation,
            onStarted: { group in
                processGroup = group
                context.events.emit(
                    .remoteProcessStarted(layer: layerName, host: context.hostName, processGroup: group.id))
            },
            onStdout: { chunk in
                // What is kept or shown is redacted and capped; the parser reads every raw byte (its results are
                // redacted by the engine before they are recorded).
                log.stdout(chunk)
                handleEvents(parser.feed(chunk))
            },
            onStderr: { chunk in log.stderr(chunk) })
        handleEvents(parser.finish())
        log.finish()
        let logged = tests.finalResults(reading: parser.facts)
        let listed = tests.listedOnly(reading: parser.facts, besides: logged)
        for result in listed { context.events.emit(.testFinished(layer: layerName, result: result)) }
        return XcodebuildInvocation(
            exit: exit, facts: parser.facts, tests: logged + listed, earlierRuns: tests.earlierRuns,
            processGroup: processGroup)
    }

    /// Creates a folder on the host (the run's artifacts folder), once per run and host: every layer and the shared
    /// build put their bundles in the same folder, and a round trip for a fact already known is wasted. A failure is
    /// not remembered (a layer retried after a lost connection asks again); a run moved to another host makes it there.
    static func makeRemoteFolder(_ path: String, context: LayerContext) throws {
        let key = "remote folder \(context.hostName) \(path)"
        do {
            try context.sharedWork.once(key) {
                let prepare = try context.host.capture("mkdir -p \(ShellQuote.quote(path))", timeoutSeconds: 60)
                guard prepare.exit == .exited(0) else {
                    throw RemoteError(
                        .commandFailed, host: context.hostName,
                        "could not create \(path): "
                            + prepare.stderrText.trimmingCharacters(in: .whitespacesAndNewlines))
                }
            }
        } catch {
            context.sharedWork.forget(key) { (made: Result<Void, Error>) in (try? made.get()) == nil }
            throw error
        }
    }

    /// Writes `<exit>\n` to `url` and returns the artifact record.
    static func writeExitCode(_ exit: RemoteExit, to url: URL, context: LayerContext) throws -> ArtifactRecord {
        try Data((exit.artifactText + "\n").utf8).write(to: url)
        return ArtifactRecord(kind: .exitCode, path: context.projectRelativePath(url))
    }
}

import Foundation
import PipeCore
import PipeSpec

/// `pipe rerun <run> [--failed]`: runs a pipeline again at the same commit, as a new run linked to the old one.
enum RerunCommand {
    static let spec = CommandSpec(
        name: "rerun",
        summary: "Run an earlier run's pipeline again at the same commit, as a new run linked to it.",
        discussion: """
            The new run checks out the commit the earlier run verified, with the same parameters, and reads the \
            pipeline from the project folder as it is now. With --failed only the layers that did not pass \
            (or were not run) run again; the others keep their outcome from the earlier run, so the new run's \
            gates are judged on each layer's latest outcome.

            Examples:
              pipe rerun last --failed
              pipe rerun 20261129-140312 --host mac-2
            """,
        arguments: [.required("run", help: "A run id, a unique prefix of one, or `last`.")],
        options: [
            .flag("failed", help: "Run again only the layers that did not pass."),
            .value("udid", help: "Use this simulator (overrides SIM_UDID and the pipeline)."),
            .value("host", help: "Run on this host of the hosts file."),
            .value("hosts-file", valueName: "path", help: "The hosts file (default: .pipe/hosts.yml)."),
            .value("reason", valueName: "text", help: "Why this run was started, for the run record."),
        ] + RunLauncher.outputOptions)

    /// Outcomes `--failed` does not run again: passed, and checklists that await or have their sign-off (nothing
    /// failed there; running them again would only ask for the same sign-off).
    static let passingOutcomes: Set<LayerOutcome> = [.passed, .flaky, .signedOff, .awaitingSignoff]

    static func execute(_ context: CommandContext) throws -> Int32 {
        let arguments = context.arguments
        let session = try RunsSession(context)
        let project = session.project
        let store = try session.store
        let stored = try session.runArgument()
        let runID = stored.record.runID
        let earlier = stored.record
        guard earlier.status != .running, earlier.status != .queued else {
            throw RequestError("run \(runID) is still \(earlier.status.rawValue); wait for it or `pipe runs cancel` it")
        }
        guard let commit = earlier.commit else {
            throw RequestError(
                "run \(runID) never checked its repository out (\(earlier.problem ?? "it ended early")), so there is "
                    + "no commit to run again; start a new run with `pipe run \(earlier.pipeline)`")
        }
        let file = try project.pipelineFile(for: earlier.pipeline, currentDirectory: context.currentDirectory)
        var pipeline: Pipeline
        do {
            pipeline = try project.loadPipeline(
                file, parameters: earlier.request.parameters, environment: context.environment,
                warn: context.console.err)
        } catch {
            context.console.err(error.description + "\n")
            return PipeExitCode.usage.rawValue
        }
        pipeline.repository.ref = commit

        var carried: [String: CarriedOutcome] = [:]
        if arguments.flag("failed") {
            for layer in earlier.layers {
                if let outcome = layer.outcome, passingOutcomes.contains(outcome),
                    pipeline.layer(named: layer.name) != nil
                {
                    carried[layer.name] = CarriedOutcome(outcome: outcome, evidence: layer.evidence, fromRun: runID)
                }
            }
            if carried.count == pipeline.layers.count {
                context.console.out("every layer of run \(runID) passed; nothing to run again\n")
                return 0
            }
        }
        let secrets = try SecretValues.resolve(
            pipeline.secrets, environment: context.environment, projectDirectory: project.url)
        let (udid, udidSource) = try RunCommand.simulatorOverride(arguments, environment: context.environment)
        guard let hosts = try RunLauncher.hosts(context, project: project),
            let projectConfig = RunLauncher.projectConfig(context, project: project)
        else { return PipeExitCode.usage.rawValue }
        let request = RunRequest(
            pipeline: pipeline, projectDirectory: project.url, requestedBy: RunCommand.requester(context.environment),
            reason: arguments.string("reason") ?? "rerun of \(runID)", trigger: "rerun", udidOverride: udid,
            udidOverrideSource: udidSource, hostOverride: arguments.string("host"), rerunOf: runID,
            carriedOver: carried, secrets: secrets, trustedRefs: projectConfig.trustedRefs)
        return try RunLauncher.launch(request, hosts: hosts, store: store, context: context)
    }
}

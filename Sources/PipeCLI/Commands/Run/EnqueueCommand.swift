import Foundation
import PipeBasics
import PipeCore
import PipeSpec
import PipeStore

/// `pipe enqueue <pipeline>`: adds a run to the controller's queue (in the run store) and prints its run id.
enum EnqueueCommand {
    static let spec = CommandSpec(
        name: "enqueue",
        summary: "Queue a pipeline run for the controller and print its run id.",
        discussion: """
            The request is checked as `pipe run` checks it (the pipeline loads with these parameters) and added to \
            the queue in the run store, ahead of scheduled runs and behind earlier manual ones. The running \
            `pipe controller` starts it when the limits and a host allow; `pipe controller status` shows the \
            queue, `pipe runs logs <id> --follow` follows the run once it has started.

            Examples:
              pipe enqueue app-intents
              pipe enqueue app-intents --ref release/2.0 --param scheme=Reader --reason "before the release"
            """,
        arguments: [.required("pipeline", help: "A pipeline name in pipelines/ (app-intents).")],
        options: [
            .value(
                "ref", short: "r", help: "The git ref (branch, tag or commit) to verify, instead of the pipeline's."),
            .keyValue("param", help: "Set a pipeline parameter, overriding its default."),
            .value("reason", valueName: "text", help: "Why this run is queued, for the run record."),
            .flag("json", help: "Print the queued run as one JSON object."),
        ])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let arguments = context.arguments
        let project = try context.projectFolder()
        let name = arguments.argument("pipeline") ?? ""
        // A name, as the controller loads pipelines by name from the project folder when the run starts.
        let file = try project.pipelineFile(for: name, currentDirectory: project.url)
        let pipelineName = file.deletingPathExtension().lastPathComponent
        guard
            file.deletingLastPathComponent().standardizedFileURL.path
                == project.pipelinesFolder.standardizedFileURL.path
        else {
            throw UsageError(
                .custom(
                    "the controller runs pipelines of \(project.pipelinesFolder.path) by name; \(name) is not one "
                        + "(pipelines: \(project.availablePipelines().joined(separator: ", ")))"),
                command: arguments.command)
        }
        let parameters = try RunCommand.parameters(arguments)
        let ref = arguments.string("ref")
        if let ref, ref.trimmingCharacters(in: .whitespaces).isEmpty {
            throw UsageError(.custom("--ref is empty; give a branch, tag or commit"), command: arguments.command)
        }
        do {
            _ = try project.loadPipeline(
                file, parameters: parameters, environment: context.environment, warn: context.console.err)
        } catch {
            context.console.err(error.description + "\nerror: nothing was queued\n")
            return PipeExitCode.usage.rawValue
        }
        let store = try StoreAccess.openWithoutSettling(context, project: project)
        let request = QueueRequest(
            pipeline: pipelineName, ref: ref, parameters: parameters, source: .manual,
            requestedBy: RunCommand.requester(context.environment), reason: arguments.string("reason"))
        guard let queued = try store.enqueue(request, at: Date()).queued else {
            throw RequestError("the queue refused the request")
        }
        let position = try store.waitingRuns().firstIndex { $0.runID == queued.runID }.map { $0 + 1 }
        let controller = try store.controllerLock()
        // Several controllers (PostgreSQL) are not listed: whether one runs is not known, so it is not denied.
        let running = store.admitsSeveralControllers || (controller.map { $0.owner.liveness() != .dead } ?? false)
        if arguments.flag("json") {
            context.console.out(
                try RunsJSON.text([
                    "runID": queued.runID, "pipeline": pipelineName, "ref": RunsJSON.orNull(ref),
                    "parameters": parameters, "position": RunsJSON.orNull(position), "controllerRunning": running,
                ]))
        } else {
            var line = "queued as run \(queued.runID) — \(pipelineName) @ \(ref ?? "the pipeline's ref")"
            if let position { line += " (position \(position) in the queue)" }
            context.console.out(line + "\n")
            if !running {
                context.console.err(
                    "note: no controller is running on this run store; the run waits until `pipe controller` starts\n")
            }
        }
        return 0
    }
}

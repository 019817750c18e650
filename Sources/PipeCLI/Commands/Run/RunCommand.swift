import Foundation
import PipeBasics
import PipeCore
import PipeSpec

/// `pipe run <pipeline>`: runs a pipeline on a Mac host and exits with the merge gate's verdict.
enum RunCommand {
    static let spec = CommandSpec(
        name: "run",
        summary: "Run a pipeline on a cloud Mac and exit with its merge-gate verdict.",
        discussion: """
            Checks the repository out at the ref (the committed state, never the work tree), connects to a host \
            (its key checked against known_hosts before logging in), chooses a simulator, runs every layer and \
            brings back each layer's exit code, log and result bundle into artifacts/<run id>/<layer>/. The run \
            record is artifacts/<run id>/summary.json. Ctrl-C stops the remote processes, keeps what was \
            brought back and exits 130. --report posts the run's gates to a forge of forges.yml as commit \
            statuses marked manual (pending once the commit is known, then the verdicts), sent by this process; \
            only the controller's runs post the contexts branch protection requires.

            Examples:
              pipe run app-intents
              pipe run pipelines/app-intents.yml --ref main --param scheme=Reader
              SIM_UDID=90052AC6-D47D-4B2A-840D-6B5B081260C6 pipe run app-intents
              pipe run app-intents --ref my-branch --report github
            """,
        arguments: [.required("pipeline", help: "A pipeline file, or a name in pipelines/ (app-intents).")],
        options: [
            .value(
                "ref", short: "r", help: "The git ref (branch, tag or commit) to verify, instead of the pipeline's."),
            .keyValue("param", help: "Set a pipeline parameter, overriding its default."),
            .value("udid", help: "Use this simulator (overrides SIM_UDID and the pipeline); the host must have it."),
            .value("host", help: "Run on this host of the hosts file."),
            .value("hosts-file", valueName: "path", help: "The hosts file (default: .pipe/hosts.yml)."),
            .value("reason", valueName: "text", help: "Why this run was started, for the run record."),
            .value(
                "report", valueName: "forge",
                help: "Post this run to that forge of forges.yml, under contexts of its own "
                    + "(pipe/<pipeline>/<gate>/manual), never the ones branch protection requires."),
            .repeated(
                "only", valueName: "layer[,layer]",
                help: "Run only these layers; the others are recorded as not run (a layer they need is not run either)."
            ),
        ] + RunLauncher.outputOptions)

    static func execute(_ context: CommandContext) throws -> Int32 {
        let arguments = context.arguments
        let project = try context.projectFolder()
        let file = try project.pipelineFile(
            for: arguments.argument("pipeline") ?? "", currentDirectory: context.currentDirectory)

        // Everything a person typed is checked before anything runs: the pipeline, the hosts file, the overrides.
        let parameters = try parameters(arguments)
        var pipeline: Pipeline
        do {
            pipeline = try project.loadPipeline(
                file, parameters: parameters, environment: context.environment, warn: context.console.err)
        } catch {
            context.console.err(error.description + "\n")
            return PipeExitCode.usage.rawValue
        }
        if let ref = arguments.string("ref") { pipeline.repository.ref = ref }
        let only = try onlyLayers(arguments, pipeline: pipeline)
        let (udid, udidSource) = try simulatorOverride(arguments, environment: context.environment)
        let secrets = try SecretValues.resolve(
            pipeline.secrets, environment: context.environment, projectDirectory: project.url)
        guard let hosts = try RunLauncher.hosts(context, project: project),
            let projectConfig = RunLauncher.projectConfig(context, project: project)
        else { return PipeExitCode.usage.rawValue }
        let forgeReport = try arguments.string("report").map {
            try ManualForgeReport(forgeName: $0, context: context, project: project)
        }
        let store = try StoreAccess.open(context, project: project)
        let request = RunRequest(
            pipeline: pipeline, projectDirectory: project.url, requestedBy: requester(context.environment),
            reason: arguments.string("reason"), trigger: "cli", udidOverride: udid, udidOverrideSource: udidSource,
            hostOverride: arguments.string("host"), onlyLayers: only, secrets: secrets,
            trustedRefs: projectConfig.trustedRefs)
        return try RunLauncher.launch(request, hosts: hosts, store: store, context: context, forgeReport: forgeReport)
    }

    /// `--only a,b` (repeatable): each name must be a layer of the pipeline.
    static func onlyLayers(_ arguments: ParsedArguments, pipeline: Pipeline) throws -> [String]? {
        let names = arguments.strings("only").flatMap { $0.split(separator: ",").map(String.init) }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return nil }
        let known = pipeline.layers.map(\.name)
        for name in names where !known.contains(name) {
            var message = "--only names the layer '\(name)', which \(pipeline.sourcePath) does not have"
            if let near = EditDistance.nearest(to: name, in: known) { message += "; did you mean '\(near)'?" }
            throw UsageError(
                .custom(message + " (layers: \(known.joined(separator: ", ")))"), command: arguments.command)
        }
        return names
    }

    /// `--param k=v` values; a key given twice is refused rather than silently taking one.
    static func parameters(_ arguments: ParsedArguments) throws -> [String: String] {
        var values: [String: String] = [:]
        for pair in arguments.keyValues("param") {
            guard values[pair.key] == nil else {
                throw UsageError(
                    .custom("--param \(pair.key) is given twice; give each parameter once"), command: arguments.command)
            }
            values[pair.key] = pair.value
        }
        return values
    }

    /// `--udid`, else `SIM_UDID`. A `SIM_UDID` that is set but empty is a mistake worth stopping for (the seeds'
    /// script checks `test -n "$SIM_UDID"` for the same reason).
    static func simulatorOverride(_ arguments: ParsedArguments, environment: [String: String]) throws -> (
        String?, String?
    ) {
        if let udid = arguments.string("udid") {
            guard !udid.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw UsageError(.custom("--udid is empty; give a simulator UDID"), command: arguments.command)
            }
            return (udid, "--udid")
        }
        if let udid = environment["SIM_UDID"] {
            guard !udid.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw RequestError(
                    "SIM_UDID is set but empty; set it to a simulator UDID the host has, or unset it to let Pipe choose"
                )
            }
            return (udid, "SIM_UDID")
        }
        return (nil, nil)
    }

    /// Who asked: the login name, for the run record.
    static func requester(_ environment: [String: String]) -> String {
        if let user = environment["USER"] ?? environment["LOGNAME"], !user.isEmpty { return user }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(getuid())"
    }
}

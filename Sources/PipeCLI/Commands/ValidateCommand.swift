import Foundation
import PipeCore
import PipeSpec

/// `pipe validate <pipeline>…`: checks pipeline files and runs nothing.
enum ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        summary: "Check pipeline files without running anything.",
        discussion: """
            Every problem of every file is listed with file:line:column and the key's path. A required parameter \
            without a default is a warning here (give it with --param when running).
            """,
        arguments: [.variadic("pipeline", help: "Pipeline files or names (default: every file in pipelines/).")],
        options: [.keyValue("param", help: "A parameter value to validate with, as `pipe run` takes it.")])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let project = try context.projectFolder()
        var names = context.arguments.variadic("pipeline")
        if names.isEmpty { names = project.availablePipelines() }
        guard !names.isEmpty else { throw RequestError("no pipelines to validate in \(project.pipelinesFolder.path)") }
        let parameters = try RunCommand.parameters(context.arguments)
        let catalog = PluginCatalog(projectDirectory: project.url, environment: context.environment)
        var invalid = 0
        for name in names {
            let file = try project.pipelineFile(for: name, currentDirectory: context.currentDirectory)
            let loader = PipelineLoader(registry: catalog.schemas(forPipelineAt: file, warn: context.console.err))
            let check = loader.validate(path: file, parameters: parameters, environment: context.environment)
            for problem in check.problems { context.console.err(problem.description + "\n") }
            if check.pipeline == nil || check.problems.contains(where: { $0.severity == .error }) {
                invalid += 1
            } else {
                let layers = check.pipeline?.layers.count ?? 0
                context.console.out("\(relativePath(file, to: project.url)): valid (\(layers) layers)\n")
            }
        }
        return invalid == 0 ? 0 : PipeExitCode.usage.rawValue
    }
}

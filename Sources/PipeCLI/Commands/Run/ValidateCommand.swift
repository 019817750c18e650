import Foundation
import PipeCore
import PipeForge
import PipeSpec

/// `pipe validate <pipeline>…`: checks pipeline files, and the project's `forges.yml`, and runs nothing.
enum ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        summary: "Check pipeline files and forges.yml without running anything.",
        discussion: """
            Every problem of every file is listed with file:line:column and the key's path. A required parameter \
            without a default is a warning here (give it with --param when running). Without arguments, every \
            pipeline and the project's forges.yml (when there is one) are checked; an argument named forges.yml \
            is checked as the forges file.
            """,
        arguments: [
            .variadic(
                "pipeline",
                help: "Pipeline files or names, or a forges.yml (default: every file in pipelines/ and forges.yml).")
        ],
        options: [.keyValue("param", help: "A parameter value to validate with, as `pipe run` takes it.")])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let project = try context.projectFolder()
        var names = context.arguments.variadic("pipeline")
        var forgesFiles = names.filter(isForgesFile).map {
            URL(fileURLWithPath: $0, relativeTo: context.currentDirectory).standardizedFileURL
        }
        names.removeAll(where: isForgesFile)
        if names.isEmpty, forgesFiles.isEmpty {
            names = project.availablePipelines()
            let projectForges = project.url.appendingPathComponent(ForgesConfigLoader.fileName)
            if FileManager.default.fileExists(atPath: projectForges.path) { forgesFiles = [projectForges] }
        }
        guard !names.isEmpty || !forgesFiles.isEmpty else {
            throw RequestError("no pipelines to validate in \(project.pipelinesFolder.path)")
        }
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
        for file in forgesFiles where !validateForges(file, project: project, context) { invalid += 1 }
        return invalid == 0 ? 0 : PipeExitCode.usage.rawValue
    }

    /// `forges.yml` (or `.yaml`), wherever it is: the forges file, not a pipeline.
    static func isForgesFile(_ argument: String) -> Bool {
        ["forges.yml", "forges.yaml"].contains((argument as NSString).lastPathComponent)
    }

    private static func validateForges(_ file: URL, project: ProjectFolder, _ context: CommandContext) -> Bool {
        // Named from the project folder in messages, as pipeline files are.
        let named = URL(fileURLWithPath: relativePath(file, to: project.url), relativeTo: project.url)
        do {
            let loader = ForgesConfigLoader(pipelines: project.availablePipelines())
            let (config, warnings) = try loader.check(named)
            for problem in warnings { context.console.err(problem.description + "\n") }
            context.console.out("\(named.relativePath): valid (\(config.forges.count) forges)\n")
            return true
        } catch {
            for problem in error.problems { context.console.err(problem.description + "\n") }
            return false
        }
    }
}

import PipeChatOps
import PipeCore
import PipeForge
import PipeSpec
import PipeWeb

/// `pipe schema <kind>`: the JSON Schema of a file a person writes, made from the key descriptions its loader
/// checks against (`docs/schema/` keeps copies, and a test keeps them equal).
enum SchemaCommand {
    /// Each kind of file, by the name the command takes; a pipeline's layers take the settings of `plugins`.
    static func files(plugins: [String: PluginSchema] = BuiltInPlugins.schemas) -> [String: FileShape] {
        [
            "pipeline": PipelineShape.file(plugins: plugins),
            "hosts": HostsFileShape.file,
            "controller": ControllerConfigFileShape.file,
            "chatops": ChatOpsConfigShape.file,
            "forges": ForgesConfigShape.file,
            "web": WebConfigShape.file,
            "project": ProjectFileShape.file,
        ]
    }
    static let kinds = ["pipeline", "hosts", "controller", "chatops", "forges", "web", "project"]

    static let spec = CommandSpec(
        name: "schema",
        summary: "Print the JSON Schema of a pipeline, hosts, controller, chatops, forges, web or project file.",
        discussion: """
            Editors complete and check YAML files against these schemas (docs/editor-support.md). They are made \
            from the descriptions the loaders check keys against; `pipe validate` still checks what a schema \
            cannot say (a `needs` naming a layer, a cron expression).

            A pipeline's layers take the settings of the built-in plugins; with --with-plugins, also those of \
            the external plugins (pipe-layer-<kind>) found in the project's Plugins/ folder and on PATH.

              pipe schema pipeline > .pipe/schema/pipeline.schema.json
            """,
        arguments: [.required("schema-kind", help: "pipeline, hosts, controller, chatops, forges, web or project.")],
        options: [
            .flag(
                "with-plugins",
                help: "Pipeline: add the external plugins of the project and PATH (each run with --describe).")
        ])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let kind = context.arguments.argument("schema-kind") ?? ""
        var plugins = BuiltInPlugins.schemas
        if context.arguments.flag("with-plugins") {
            let project = try context.projectFolder()
            plugins = PluginCatalog(projectDirectory: project.url, environment: context.environment).allSchemas(
                warn: context.console.err)
        }
        guard let file = files(plugins: plugins)[kind] else {
            throw RequestError("no schema '\(kind)'; choose one of \(kinds.joined(separator: ", "))")
        }
        context.console.out(JSONSchemaWriter.text(for: file))
        return 0
    }
}

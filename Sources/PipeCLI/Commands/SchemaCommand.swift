import PipeChatOps
import PipeCore
import PipeForge
import PipeSpec
import PipeWeb

/// `pipe schema <kind>`: the JSON Schema of a file a person writes, made from the key descriptions its loader
/// checks against (`docs/schema/` keeps copies, and a test keeps them equal).
enum SchemaCommand {
    /// Each kind of file, by the name the command takes.
    static var files: [String: FileShape] {
        [
            "pipeline": PipelineShape.file(plugins: BuiltInPlugins.schemas),
            "hosts": HostsFileShape.file,
            "controller": ControllerConfigFileShape.file,
            "chatops": ChatOpsConfigShape.file,
            "forges": ForgesConfigShape.file,
            "web": WebConfigShape.file,
        ]
    }
    static let kinds = ["pipeline", "hosts", "controller", "chatops", "forges", "web"]

    static let spec = CommandSpec(
        name: "schema",
        summary: "Print the JSON Schema of a pipeline, hosts, controller, chatops, forges or web file.",
        discussion: """
            Editors complete and check YAML files against these schemas (docs/editor-support.md). They are made \
            from the descriptions the loaders check keys against; `pipe validate` still checks what a schema \
            cannot say (a `needs` naming a layer, a cron expression).

              pipe schema pipeline > .pipe/pipeline.schema.json
            """,
        arguments: [.required("schema-kind", help: "pipeline, hosts, controller, chatops, forges or web.")])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let kind = context.arguments.argument("schema-kind") ?? ""
        guard let file = files[kind] else {
            throw RequestError("no schema '\(kind)'; choose one of \(kinds.joined(separator: ", "))")
        }
        context.console.out(JSONSchemaWriter.text(for: file))
        return 0
    }
}

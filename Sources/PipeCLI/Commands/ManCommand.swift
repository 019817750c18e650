/// `pipe man`: the man page, generated from the command tree that prints `--help`.
enum ManCommand {
    static let spec = CommandSpec(
        name: "man",
        summary: "Print Pipe's man page (roff), made from the same descriptions as --help.",
        discussion: """
            Read it with `pipe man | man -l -`, or install it as pipe.1 (the packages do).
            """)

    static func execute(_ context: CommandContext) throws -> Int32 {
        let page = ManPageFormatter(
            root: PipeCommandLine.root, version: "pipe \(BuildInfo.current.version)", versionHasJSON: true)
        context.console.out(page.render())
        return 0
    }
}

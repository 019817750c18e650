import PipeCLI

/// A command tree shaped like Pipe's own (root options, groups, nested subcommands, every argument and option
/// kind), so the parser and help are tested on what the real commands will declare.
enum SampleCommands {
    static let tool = CommandLineTool(root: root, version: "pipe 0.1.0 (test)")

    static let root = CommandSpec(
        name: "pipe",
        summary: "Verifies iOS apps on cloud Macs from a Linux coordinator.",
        discussion: """
            Pipe checks a repository out, leases a Mac host and a simulator over SSH, runs each verification \
            layer of a pipeline there and brings back the exit code, the log and the result bundle.
            """,
        options: [
            .flag("verbose", short: "v", help: "Print every remote command and its timing."),
            .value("store", valueName: "path", default: ".pipe/runs.sqlite", help: "The run history database."),
        ],
        groups: [
            CommandGroup("COMMANDS", [run, validate]),
            CommandGroup("RUN HISTORY", [runs, signoff]),
            CommandGroup("HOST COMMANDS", [hosts]),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "Every automated layer passed, or was flaky where the pipeline allows it."),
                    .init("1", "A proven app failure: tests or build failed, or a layer timed out."),
                    .init("2", "Invalid usage or an invalid pipeline file; nothing ran."),
                    .init(
                        "3",
                        "The run could not judge the app: host configuration, infrastructure or plugin failure "
                            + "(scheme not shared, simulator missing, host unreachable, host key refused)."),
                    .init("130", "Cancelled by the user (Ctrl-C or SIGTERM); wins over every other code."),
                ]),
            HelpSection(
                title: "ENVIRONMENT",
                text: """
                    SIM_UDID names the simulator for every layer, like --udid; it must be one the host has.

                      SIM_UDID=6F1D6C2A-0000-4000-8000-000000000001 pipe run pipelines/app-intents.yml
                    """),
        ])

    static let run = CommandSpec(
        name: "run",
        summary: "Run a pipeline on a cloud Mac and exit with its merge-gate verdict.",
        discussion: """
            Checks the repository out at the given ref, leases a host and a simulator, runs every layer in order \
            and writes artifacts/<run id>/summary.json. The exit code is the merge gate's verdict; manual layers \
            are listed as pending, never failed.

            Examples:
              pipe run pipelines/app-intents.yml --ref main
              pipe run pipelines/app-intents.yml --param scheme=Reader --only ReaderTests/testNormalize
            """,
        arguments: [.required("pipeline", help: "The pipeline file to run.")],
        options: [
            .value("ref", short: "r", default: "HEAD", help: "The git ref (branch, tag or commit) to check out."),
            .keyValue("param", help: "Set a pipeline parameter, overriding its default."),
            .repeated("only", valueName: "test-identifier", help: "Run only this test of every xcodebuild layer."),
            .value("udid", help: "Use this simulator; it must be available on the chosen host."),
            .value("timeout", valueName: "seconds", help: "Stop a layer that runs longer than this."),
            .value(
                "result-bundle-directory", valueName: "remote-directory-path",
                help: "Where result bundles are written on the host, instead of the run's own folder."),
            .flag("json", help: "Print JSON lines instead of the live terminal view."),
        ])

    static let validate = CommandSpec(
        name: "validate",
        summary: "Check pipeline files without running anything.",
        arguments: [.variadic("pipeline", help: "The pipeline files to check (every problem of each is listed).")],
        options: [.flag("json", help: "Print the problems as JSON.")])

    static let runs = CommandSpec(
        name: "runs",
        summary: "Inspect past runs.",
        subcommands: [
            CommandSpec(
                name: "list", summary: "List recent runs, newest first.",
                options: [.value("limit", valueName: "count", default: "20", help: "How many runs to list.")]),
            CommandSpec(
                name: "show", summary: "Show one run's layers and evidence.",
                arguments: [.optional("run", help: "A run id, a unique prefix of one, or 'last' (the default).")]),
        ])

    static let signoff = CommandSpec(
        name: "signoff",
        summary: "Record the result of a manual checklist layer.",
        arguments: [
            .required("run", help: "The run id, a unique prefix of it, or 'last'."),
            .required("layer", help: "The manual layer signed off."),
            .variadic("note", help: "Observations, stored with the sign-off."),
        ],
        options: [.flag("reject", help: "Record the layer as rejected instead of signed off.")])

    static let hosts = CommandSpec(
        name: "hosts",
        summary: "Manage the Mac hosts Pipe may use.",
        options: [.value("hosts-file", valueName: "path", default: "hosts.yml", help: "The hosts file.")],
        subcommands: [
            CommandSpec(name: "list", summary: "List hosts with their labels and capacity."),
            CommandSpec(
                name: "trust", summary: "Add a host's key to its known_hosts file after showing its fingerprint.",
                arguments: [.required("host", help: "The host's name in the hosts file.")],
                options: [.flag("yes", short: "y", help: "Do not ask for confirmation.")]),
        ])
}

import PipeCLI
import XCTest

final class CommandSpecValidationTests: XCTestCase {
    func testSampleTreeIsSound() {
        XCTAssertEqual(SampleCommands.root.definitionProblems, [])
    }

    func testEveryProblemIsReportedWithItsCommand() {
        let run = CommandSpec(
            name: "run", summary: "",
            arguments: [
                .optional("ref", help: ""), .required("pipeline", help: ""), .variadic("rest", help: ""),
                .required("late", help: ""), .required("late", help: ""),
            ],
            options: [
                .value("verbose", help: ""), .flag("quiet", short: "v", help: ""), .flag("x", short: "h", help: ""),
                .repeated("only", help: ""), .flag("--json", help: ""),
                OptionSpec("tags", kind: .repeated, defaultValue: "a", help: ""),
            ])
        let hosts = CommandSpec(
            name: "hosts", summary: "", arguments: [.required("host", help: "")],
            groups: [
                CommandGroup(
                    "COMMANDS", [CommandSpec(name: "list", summary: ""), CommandSpec(name: "list", summary: "")])
            ])
        let broken = CommandSpec(
            name: "pipe", summary: "",
            options: [.flag("verbose", short: "v", help: ""), .flag("version", help: "")],
            subcommands: [run, hosts, CommandSpec(name: "help", summary: ""), CommandSpec(name: "-x", summary: "")])
        XCTAssertEqual(
            broken.definitionProblems,
            [
                "'pipe': option '--version' is already declared by the built-in --version",
                "'pipe run': option '--verbose' is already declared by 'pipe'",
                "'pipe run': option '-v' is already declared by 'pipe'",
                "'pipe run': option '-h' is already declared by the built-in --help",
                "'pipe run': option name '--json' must be a word without leading dashes, '=' or spaces",
                "'pipe run': option '--tags' has a default, which only a single-value option can use",
                "'pipe run': required argument <pipeline> follows an optional one; list required ones first",
                "'pipe run': argument <late> follows a variadic one, which takes every remaining value",
                "'pipe run': argument <late> is declared twice",
                "'pipe run': argument <late> follows a variadic one, which takes every remaining value",
                "'pipe hosts': a command with subcommands cannot take positional arguments",
                "'pipe hosts': subcommand 'list' is declared twice",
                "'pipe': subcommand 'help' clashes with the built-in 'pipe help'",
                "'pipe': subcommand name '-x' must be a word that does not start with '-'",
            ])
    }

    func testSubcommandsMayReuseNamesOfSiblings() {
        let tree = CommandSpec(
            name: "pipe", summary: "",
            subcommands: [
                CommandSpec(name: "a", summary: "", options: [.flag("json", short: "j", help: "")]),
                CommandSpec(name: "b", summary: "", options: [.flag("json", short: "j", help: "")]),
            ])
        XCTAssertEqual(tree.definitionProblems, [])
    }
}

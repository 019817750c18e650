import PipeCLI
import XCTest

/// Every usage error, compared as the whole text `pipe` prints to stderr.
final class UsageErrorTests: XCTestCase {
    private func assertError(
        _ words: [String], _ expected: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let outcome = SampleCommands.tool.parse(words)
        guard case .error(let error) = outcome else {
            return XCTFail("expected a usage error for \(words), got \(outcome)", file: file, line: line)
        }
        XCTAssertEqual(error.description, expected, file: file, line: line)
        XCTAssertEqual(error.exitCode, 2, file: file, line: line)
    }

    func testUnknownOptionSuggestsTheNearest() {
        assertError(
            ["run", "p.yml", "--reff", "main"],
            "error: unknown option '--reff' for 'pipe run'; did you mean '--ref'?\nsee 'pipe run --help'")
        assertError(
            ["run", "p.yml", "--reff=main"],
            "error: unknown option '--reff' for 'pipe run'; did you mean '--ref'?\nsee 'pipe run --help'")
        assertError(
            ["run", "-ref", "main", "p.yml"],
            "error: unknown option '-ref' for 'pipe run'; did you mean '--ref'?\nsee 'pipe run --help'")
        // Options of ancestors count: they are accepted here too.
        assertError(
            ["run", "p.yml", "--verbos"],
            "error: unknown option '--verbos' for 'pipe run'; did you mean '--verbose'?\nsee 'pipe run --help'")
        assertError(
            ["--stor", "x", "run"],
            "error: unknown option '--stor' for 'pipe'; did you mean '--store'?\nsee 'pipe --help'")
    }

    func testUnknownOptionWithoutCloseMatch() {
        assertError(
            ["run", "p.yml", "--frobnicate"],
            "error: unknown option '--frobnicate' for 'pipe run'\nsee 'pipe run --help'")
        assertError(["run", "-x", "p.yml"], "error: unknown option '-x' for 'pipe run'\nsee 'pipe run --help'")
        // `--version` belongs to the program, not to a subcommand.
        assertError(["run", "--version"], "error: unknown option '--version' for 'pipe run'\nsee 'pipe run --help'")
    }

    func testUnknownCommandSuggestsTheNearest() {
        assertError(
            ["rnu", "p.yml"], "error: unknown command 'rnu' for 'pipe'; did you mean 'run'?\nsee 'pipe --help'")
        assertError(["hlep"], "error: unknown command 'hlep' for 'pipe'; did you mean 'help'?\nsee 'pipe --help'")
        assertError(
            ["runs", "lst"],
            "error: unknown command 'lst' for 'pipe runs'; did you mean 'list'?\nsee 'pipe runs --help'")
        assertError(["deploy"], "error: unknown command 'deploy' for 'pipe'\nsee 'pipe --help'")
        assertError(["help", "rnu"], "error: unknown command 'rnu' for 'pipe'; did you mean 'run'?\nsee 'pipe --help'")
        assertError(["help", "run", "fast"], "error: unknown command 'fast' for 'pipe run'\nsee 'pipe run --help'")
    }

    func testMissingValue() {
        assertError(
            ["run", "p.yml", "--ref"],
            "error: option '--ref' of 'pipe run' needs a value: --ref <ref>\nsee 'pipe run --help'")
        assertError(
            ["run", "p.yml", "-r"],
            "error: option '--ref' of 'pipe run' needs a value: --ref <ref>\nsee 'pipe run --help'")
        assertError(
            ["run", "--ref", "--json", "p.yml"],
            "error: option '--ref' of 'pipe run' needs a value, but '--json' follows it; "
                + "write --ref=<ref> for a value that starts with '-'\nsee 'pipe run --help'")
        assertError(
            ["run", "p.yml", "--timeout", "-5"],
            "error: option '--timeout' of 'pipe run' needs a value, but '-5' follows it; "
                + "write --timeout=<seconds> for a value that starts with '-'\nsee 'pipe run --help'")
        assertError(
            ["run", "p.yml", "--ref", "--", "x"],
            "error: option '--ref' of 'pipe run' needs a value, but '--' follows it; "
                + "write --ref=<ref> for a value that starts with '-'\nsee 'pipe run --help'")
    }

    func testFlagGivenAValue() {
        assertError(
            ["run", "p.yml", "--json=yes"],
            "error: flag '--json' of 'pipe run' takes no value; remove '=yes'\nsee 'pipe run --help'")
    }

    func testBuiltInFlagsTakeNoValueEither() {
        assertError(
            ["run", "p.yml", "--help=run"],
            "error: flag '--help' of 'pipe run' takes no value; remove '=run'\nsee 'pipe run --help'")
        assertError(
            ["--version=2"], "error: flag '--version' of 'pipe' takes no value; remove '=2'\nsee 'pipe --help'")
    }

    func testSingleValueOptionGivenTwice() {
        let expected =
            "error: option '--ref' of 'pipe run' was given more than once; give it once\nsee 'pipe run --help'"
        assertError(["run", "p.yml", "--ref", "a", "--ref", "b"], expected)
        assertError(["run", "p.yml", "-r", "a", "--ref=a"], expected)
    }

    func testKeyValueWithoutEquals() {
        assertError(
            ["run", "p.yml", "--param", "foo"],
            "error: option '--param' of 'pipe run' expects key=value, got 'foo'; write --param foo=<value>\n"
                + "see 'pipe run --help'")
        assertError(
            ["run", "p.yml", "--param==main"],
            "error: option '--param' of 'pipe run' expects key=value, got '=main'; write --param <key>=main\n"
                + "see 'pipe run --help'")
    }

    func testMissingRequiredArgument() {
        assertError(["run"], "error: missing argument <pipeline> for 'pipe run'\nsee 'pipe run --help'")
        assertError(["run", "--json"], "error: missing argument <pipeline> for 'pipe run'\nsee 'pipe run --help'")
        assertError(
            ["signoff", "last"], "error: missing argument <layer> for 'pipe signoff'\nsee 'pipe signoff --help'")
        assertError(
            ["hosts", "trust"], "error: missing argument <host> for 'pipe hosts trust'\nsee 'pipe hosts trust --help'")
    }

    func testTooManyArguments() {
        assertError(
            ["run", "a.yml", "b.yml"],
            "error: unexpected argument 'b.yml' for 'pipe run', which takes <pipeline>\nsee 'pipe run --help'")
        assertError(
            ["runs", "show", "a", "b"],
            "error: unexpected argument 'b' for 'pipe runs show', which takes [<run>]\nsee 'pipe runs show --help'")
        assertError(
            ["runs", "list", "extra"],
            "error: unexpected argument 'extra' for 'pipe runs list', which takes no arguments\n"
                + "see 'pipe runs list --help'")
    }

    func testInvalidNumber() throws {
        guard case .run(_, let arguments) = SampleCommands.tool.parse(["runs", "list", "--limit", "soon"]) else {
            return XCTFail("expected .run")
        }
        XCTAssertThrowsError(try arguments.int("limit")) { error in
            XCTAssertEqual(
                (error as? UsageError)?.description,
                "error: invalid value 'soon' for '--limit' of 'pipe runs list': expected a whole number\n"
                    + "see 'pipe runs list --help'")
        }
    }

    func testCommandsRaiseTheirOwnProblemsInTheSameShape() {
        let error = UsageError(.custom("--udid and SIM_UDID name different simulators; give one"), command: "pipe run")
        XCTAssertEqual(
            error.description, "error: --udid and SIM_UDID name different simulators; give one\nsee 'pipe run --help'")
        XCTAssertEqual(error.exitCode, 2)
    }

    func testHelpWinsOverAnErrorBeforeIt() {
        let runHelp = SampleCommands.tool.helpText(for: ["run"])!
        XCTAssertEqual(SampleCommands.tool.parse(["run", "--reff", "--help"]), .help(runHelp))
        XCTAssertEqual(SampleCommands.tool.parse(["run", "--ref", "--help"]), .help(runHelp))
        XCTAssertEqual(SampleCommands.tool.parse(["run", "a", "b", "-h"]), .help(runHelp))
        // After `--`, `--help` is a value like any other.
        assertError(
            ["run", "a.yml", "--", "--help"],
            "error: unexpected argument '--help' for 'pipe run', which takes <pipeline>\nsee 'pipe run --help'")
    }
}

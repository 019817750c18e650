import PipeCLI
import XCTest

final class ParsingTests: XCTestCase {
    private struct UnexpectedOutcome: Error {
        let outcome: ParseOutcome
    }

    /// Parses `words` and expects a command to run: returns its path and arguments, or throws (failing the test).
    private func parse(_ words: [String]) throws -> (path: [String], arguments: ParsedArguments) {
        let outcome = SampleCommands.tool.parse(words)
        guard case .run(let path, let arguments) = outcome else { throw UnexpectedOutcome(outcome: outcome) }
        return (path, arguments)
    }

    func testValueOptionForms() throws {
        for words in [
            ["run", "p.yml", "--ref", "main"], ["run", "p.yml", "--ref=main"], ["run", "-r", "main", "p.yml"],
        ] {
            let (path, arguments) = try parse(words)
            XCTAssertEqual(path, ["run"])
            XCTAssertEqual(arguments.string("ref"), "main", "\(words)")
            XCTAssertTrue(arguments.isGiven("ref"))
            XCTAssertEqual(arguments.argument("pipeline"), "p.yml")
        }
    }

    func testDefaultAppliesOnlyWhenOptionIsAbsent() throws {
        let arguments = try parse(["run", "p.yml"]).arguments
        XCTAssertEqual(arguments.string("ref"), "HEAD")
        XCTAssertFalse(arguments.isGiven("ref"))
        XCTAssertNil(arguments.string("udid"))
        XCTAssertEqual(arguments.strings("ref"), [])
    }

    func testValueStartingWithDashNeedsEqualsForm() throws {
        XCTAssertEqual(try parse(["run", "p.yml", "--ref=-x"]).arguments.string("ref"), "-x")
        XCTAssertEqual(try parse(["run", "p.yml", "--ref=--json"]).arguments.string("ref"), "--json")
        XCTAssertEqual(try parse(["run", "p.yml", "--ref="]).arguments.string("ref"), "")
        // A lone `-` means stdin by convention, so it is a value and a positional, not an option.
        let stdin = try parse(["run", "--ref", "-", "-"]).arguments
        XCTAssertEqual(stdin.string("ref"), "-")
        XCTAssertEqual(stdin.argument("pipeline"), "-")
    }

    func testFlags() throws {
        XCTAssertTrue(try parse(["run", "p.yml", "--json"]).arguments.flag("json"))
        XCTAssertFalse(try parse(["run", "p.yml"]).arguments.flag("json"))
        XCTAssertTrue(try parse(["run", "--json", "p.yml", "--json"]).arguments.flag("json"))
        XCTAssertTrue(try parse(["hosts", "trust", "-y", "mac-1"]).arguments.flag("yes"))
    }

    func testRepeatedOptionsKeepCommandLineOrder() throws {
        let arguments = try parse([
            "run", "--only", "B/b", "p.yml", "--param", "scheme=Reader", "--only=A/a", "--param=filter=a=b",
            "--param", "scheme=Other", "--only", "C/c",
        ]).arguments
        XCTAssertEqual(arguments.strings("only"), ["B/b", "A/a", "C/c"])
        XCTAssertEqual(arguments.strings("param"), ["scheme=Reader", "filter=a=b", "scheme=Other"])
        XCTAssertEqual(
            arguments.keyValues("param"),
            [
                KeyValue(key: "scheme", value: "Reader"), KeyValue(key: "filter", value: "a=b"),
                KeyValue(key: "scheme", value: "Other"),
            ])
        XCTAssertEqual(try parse(["run", "p.yml"]).arguments.keyValues("param"), [])
    }

    func testKeyValueSplitting() {
        XCTAssertEqual(KeyValue(splitting: "ref=main"), KeyValue(key: "ref", value: "main"))
        XCTAssertEqual(KeyValue(splitting: "empty="), KeyValue(key: "empty", value: ""))
        XCTAssertEqual(KeyValue(splitting: "a=b=c"), KeyValue(key: "a", value: "b=c"))
        XCTAssertNil(KeyValue(splitting: "foo"))
        XCTAssertNil(KeyValue(splitting: "=value"))
    }

    func testOptionsAndPositionalsInterleave() throws {
        let arguments = try parse(["run", "--json", "p.yml", "--ref", "main"]).arguments
        XCTAssertEqual(arguments.positionals, ["p.yml"])
        XCTAssertEqual(arguments.positional(0), "p.yml")
        XCTAssertNil(arguments.positional(1))
        XCTAssertTrue(arguments.flag("json"))
        XCTAssertEqual(arguments.string("ref"), "main")
    }

    func testGlobalOptionsBeforeOrAfterTheSubcommand() throws {
        for words in [
            ["-v", "--store", "/tmp/r.sqlite", "run", "p.yml"], ["run", "p.yml", "--verbose", "--store=/tmp/r.sqlite"],
            ["--store", "/tmp/r.sqlite", "runs", "list", "-v"],
        ] {
            let arguments = try parse(words).arguments
            XCTAssertTrue(arguments.flag("verbose"), "\(words)")
            XCTAssertEqual(arguments.string("store"), "/tmp/r.sqlite", "\(words)")
        }
        XCTAssertEqual(try parse(["run", "p.yml"]).arguments.string("store"), ".pipe/runs.sqlite")
    }

    func testNestedSubcommands() throws {
        let list = try parse(["runs", "list", "--limit", "5"])
        XCTAssertEqual(list.path, ["runs", "list"])
        XCTAssertEqual(list.arguments.command, "pipe runs list")
        XCTAssertEqual(try list.arguments.int("limit"), 5)
        XCTAssertEqual(try parse(["runs", "list"]).arguments.int("limit"), 20)

        let trust = try parse(["hosts", "--hosts-file", "fleet.yml", "trust", "mac-1"])
        XCTAssertEqual(trust.path, ["hosts", "trust"])
        XCTAssertEqual(trust.arguments.argument("host"), "mac-1")
        XCTAssertEqual(trust.arguments.string("hosts-file"), "fleet.yml")
        XCTAssertEqual(try parse(["hosts", "list"]).arguments.string("hosts-file"), "hosts.yml")
    }

    func testOptionalAndVariadicArguments() throws {
        XCTAssertNil(try parse(["runs", "show"]).arguments.argument("run"))
        XCTAssertEqual(try parse(["runs", "show", "20261129"]).arguments.argument("run"), "20261129")

        XCTAssertEqual(try parse(["validate"]).arguments.variadic("pipeline"), [])
        let validate = try parse(["validate", "a.yml", "--json", "b.yml"]).arguments
        XCTAssertEqual(validate.variadic("pipeline"), ["a.yml", "b.yml"])
        XCTAssertEqual(validate.positional(1), "b.yml")

        let signoff = try parse(["signoff", "last", "manual", "felt", "right"]).arguments
        XCTAssertEqual(signoff.argument("run"), "last")
        XCTAssertEqual(signoff.argument("layer"), "manual")
        XCTAssertEqual(signoff.variadic("note"), ["felt", "right"])
    }

    func testDoubleDashEndsOptions() throws {
        let signoff = try parse(["signoff", "--reject", "last", "--", "manual", "--json", "-h", "--", "--help"])
        XCTAssertTrue(signoff.arguments.flag("reject"))
        XCTAssertEqual(signoff.arguments.argument("layer"), "manual")
        XCTAssertEqual(signoff.arguments.variadic("note"), ["--json", "-h", "--", "--help"])

        let run = try parse(["run", "--", "-weird.yml"]).arguments
        XCTAssertEqual(run.argument("pipeline"), "-weird.yml")
        XCTAssertFalse(run.flag("json"))
    }

    func testSubcommandCanFollowDoubleDash() throws {
        XCTAssertEqual(try parse(["--", "runs", "list"]).path, ["runs", "list"])
    }

    func testAcceptsArgumentSlices() throws {
        let words = ["pipe", "validate", "a.yml"].dropFirst()
        guard case .run(let path, _) = SampleCommands.tool.parse(words) else { return XCTFail("expected .run") }
        XCTAssertEqual(path, ["validate"])
    }

    func testVersion() {
        XCTAssertEqual(SampleCommands.tool.parse(["--version"]), .version("pipe 0.1.0 (test)"))
        XCTAssertEqual(SampleCommands.tool.parse(["-v", "--version"]), .version("pipe 0.1.0 (test)"))
        XCTAssertEqual(SampleCommands.tool.parse(["--version", "--json"]), .version("pipe 0.1.0 (test)"))
        let withJSON = CommandLineTool(root: SampleCommands.root, version: "pipe 0.1.0", versionJSON: #"{"v":1}"#)
        XCTAssertEqual(withJSON.parse(["--version", "--json"]), .version(#"{"v":1}"#))
        XCTAssertEqual(withJSON.parse(["--version"]), .version("pipe 0.1.0"))
    }

    func testAccessorsReadWhatTheCommandDeclares() throws {
        // Ancestors' options are visible; the lead's commands read them by the same names.
        let arguments = try parse(["hosts", "trust", "mac-1"]).arguments
        XCTAssertFalse(arguments.flag("verbose"))
        XCTAssertFalse(arguments.isGiven("hosts-file"))
        XCTAssertEqual(arguments.positionals, ["mac-1"])
    }
}

import XCTest

@testable import PipeCLI

/// The real `pipe` command tree (the sample tree in `SampleCommands` tests the parser itself).
final class PipeCommandTreeTests: XCTestCase {
    func testTheTreeIsWellFormed() {
        XCTAssertEqual(PipeCommandLine.root.definitionProblems, [])
    }

    func testRootHelpDocumentsEveryExitCode() throws {
        guard case .help(let text) = PipeCommandLine.tool.parse(["--help"]) else {
            return XCTFail("--help did not give help")
        }
        for code in ["0", "1", "2", "3", "130"] {
            XCTAssertNotNil(text.range(of: "\n  \(code) "), "exit code \(code) is not documented:\n\(text)")
        }
    }

    func testRunAcceptsEveryDocumentedOption() throws {
        let words = [
            "run", "app-intents", "--ref", "main", "--param", "scheme=Reader", "--param", "ref=x", "--udid", "U",
            "--host", "mac-1", "--hosts-file", "h.yml", "--reason", "nightly", "-v", "--project-dir", ".",
        ]
        guard case .run(let path, let arguments) = PipeCommandLine.tool.parse(words) else {
            return XCTFail("did not parse")
        }
        XCTAssertEqual(path, ["run"])
        XCTAssertEqual(arguments.string("ref"), "main")
        XCTAssertEqual(try RunCommand.parameters(arguments), ["scheme": "Reader", "ref": "x"])
    }

    func testAParameterGivenTwiceIsRefused() throws {
        guard
            case .run(_, let arguments) = PipeCommandLine.tool.parse(["run", "p", "--param", "a=1", "--param", "a=2"])
        else { return XCTFail("did not parse") }
        XCTAssertThrowsError(try RunCommand.parameters(arguments)) {
            XCTAssertTrue("\($0)".contains("--param a is given twice"), "\($0)")
        }
    }
}

import Foundation
import PipeTestSupport
import XCTest

@testable import PipeCore

/// Values and secrets handed to a host command over stdin (`CommandEnvironment`, `SecretDelivery`): any byte but
/// NUL, newlines included, arrives unchanged, and a cut or malformed stream runs nothing.
final class CommandEnvironmentTests: XCTestCase {
    /// `sh` is dash here and bash 3.2 on a Mac; `zsh` is a Mac's login shell, which reads the line first.
    private let shells = ["/bin/sh", "/usr/bin/zsh", "/bin/bash"]

    override func setUp() {
        try? FileManager.default.removeItem(atPath: InjectionCorpus.witnessFile)
    }

    func testEveryCorpusByteStringArrivesUnchangedInEveryShell() throws {
        for bytes in InjectionCorpus.byteStrings + [Array("two\nlines\n\n".utf8), Array("\r\n".utf8)] {
            var environment = CommandEnvironment()
            try environment.set("VALUE", to: bytes)
            try environment.set("OTHER", to: "second")
            let (line, stdin) = environment.wrap("printf '%s|%s' \"$VALUE\" \"$OTHER\"")
            XCTAssertFalse(line.contains("pipe-injected"), line)
            for shell in shells {
                let result = try CommandRunner.shell(shell, line, stdin: stdin)
                XCTAssertEqual(result.exitCode, 0, "\(shell): \(result.stderr)")
                XCTAssertEqual(result.stdoutData, Data(bytes + Array("|second".utf8)), "\(shell) changed \(bytes)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile), shell)
            }
        }
    }

    func testTheReaderRunsUnderBashAsAMacsShDoes() throws {
        var environment = CommandEnvironment()
        try environment.set("VALUE", to: "ünï\ncødé")
        let stdin = try XCTUnwrap(environment.wrap("").stdin)
        let result = try CommandRunner.shell(
            "/bin/bash", "exec /bin/bash --posix -c \"$0\" pipe-environment 'printf %s \"$VALUE\"' VALUE",
            arguments: [CommandEnvironment.readerScript], stdin: stdin)
        XCTAssertEqual(result.stdout, "ünï\ncødé", result.stderr)
    }

    func testTheCommandSeesOnlyTheNamesGivenNotTheReadersVariables() throws {
        var environment = CommandEnvironment()
        try environment.set("VALUE", to: "v")
        let (line, stdin) = environment.wrap("env | grep -c '^pipe_' || true")
        let result = try CommandRunner.shell("/bin/sh", line, stdin: stdin)
        XCTAssertEqual(result.stdout, "0\n", result.stderr)
    }

    func testACutOrMalformedStreamRunsNothing() throws {
        var environment = CommandEnvironment()
        try environment.set("A", to: String(repeating: "a", count: 300))
        try environment.set("B", to: "b")
        let (line, stdin) = environment.wrap("id > \(InjectionCorpus.witnessFile)")
        let full = try XCTUnwrap(stdin)
        let cases: [(Data, String)] = [
            (full.prefix(full.count - 4), "ended early"),
            (full.prefix(40) + Data("\n".utf8) + full.suffix(4), "were cut short"),
            (Data("3 QUJD;id\n1 Yg==\n".utf8), "are malformed"),
            (Data("x QUJD\n1 Yg==\n".utf8), "are malformed"),
        ]
        for (input, says) in cases {
            let result = try CommandRunner.shell("/bin/sh", line, stdin: input)
            XCTAssertEqual(result.exitCode, 125, says)
            XCTAssertTrue(
                result.stderr.contains("the values handed to this command \(says); nothing was run"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile), says)
        }
    }

    func testNulAWrongNameAndATwiceGivenNameAreRefused() {
        var environment = CommandEnvironment()
        XCTAssertThrowsError(try environment.set("V", to: InjectionCorpus.withNUL)) { error in
            XCTAssertEqual(
                "\(error)", "the value for V holds a NUL byte, which no environment variable can carry; remove it")
        }
        XCTAssertThrowsError(try environment.set("only-testing", to: "x"))
        XCTAssertThrowsError(try environment.set("A=b", to: "x"))
        XCTAssertNoThrow(try environment.set("A", to: "x"))
        XCTAssertThrowsError(try environment.set("A", to: "y"))
        XCTAssertEqual(environment.names, ["A"])
    }

    func testSecretsTravelTheSameWay() throws {
        let delivery = try SecretDelivery.wrap(
            "printf %s \"$TEST_RUNNER_TOKEN\"", secrets: SecretValues(["TOKEN": "it's $(id) `id`"]),
            exportName: { "TEST_RUNNER_\($0)" })
        XCTAssertFalse(delivery.command.contains("$(id)"))
        let result = try CommandRunner.shell("/usr/bin/zsh", delivery.command, stdin: delivery.stdin)
        XCTAssertEqual(result.stdout, "it's $(id) `id`")
        XCTAssertThrowsError(
            try SecretDelivery.wrap("true", secrets: SecretValues(["TOKEN": "a\u{0}b"])))
    }

    func testASecretFileWithANulByteIsRefusedBeforeAnythingRuns() throws {
        let folder = try TemporaryDirectory(prefix: "secret-nul")
        defer { folder.remove() }
        try Data("a\u{0}b".utf8).write(to: folder.appending("token"))
        XCTAssertThrowsError(
            try SecretValues.resolve(["TOKEN": .file("token")], environment: [:], projectDirectory: folder.url)
        ) { error in
            XCTAssertTrue("\(error)".contains("TOKEN: the file token holds a NUL byte"), "\(error)")
        }
    }
}

import Foundation
import PipeCore
import PipeSpec
import XCTest

/// `${name}` in a shell command becomes a quoted reference to an environment variable; the value never enters the
/// command's text, and a reference where the shell would not read it as one word is refused.
final class ShellCommandInterpolationTests: XCTestCase {
    private func layer(
        _ command: String, parameters: [String: String] = [:], environment: [String: String] = [:],
        declaring names: [String] = ["p"]
    ) throws -> LayerSpec {
        let declarations = names.map { "  \($0): { default: x }\n" }.joined()
        let pipeline = try SpecFixtures.pipeline(
            "parameters:\n" + declarations + "layers:\n  check:\n    plugin: shell\n    run: |\n      \(command)\n",
            parameters: parameters, environment: environment)
        return try XCTUnwrap(pipeline.layers.first)
    }

    private func errors(_ command: String, parameters: [String: String] = [:]) -> [String] {
        SpecFixtures.errors(
            "parameters:\n  p: { default: x }\nlayers:\n  check:\n    plugin: shell\n    run: |\n      \(command)\n",
            parameters: parameters)
    }

    func testAValueBecomesAQuotedReferenceAndTravelsBesideTheCommand() throws {
        let check = try layer("du -sk ${folder}", parameters: ["folder": ".;id>/tmp/x"], declaring: ["folder"])
        XCTAssertEqual(check.settings["run"], .string("du -sk \"$PIPE_PARAM_folder\"\n"))
        XCTAssertEqual(check.shellParameters, ["PIPE_PARAM_folder": ".;id>/tmp/x"])
    }

    func testEveryParameterAndTheNamedEnvironmentVariablesReachAShellLayer() throws {
        let check = try layer(
            "make ${only-testing} ${HOME}", environment: ["HOME": "/home/ci", "OTHER": "unused"],
            declaring: ["only-testing", "unused-here"])
        XCTAssertEqual(check.settings["run"], .string("make \"$PIPE_PARAM_only_testing\" \"$PIPE_PARAM_HOME\"\n"))
        XCTAssertEqual(
            check.shellParameters,
            ["PIPE_PARAM_only_testing": "x", "PIPE_PARAM_unused_here": "x", "PIPE_PARAM_HOME": "/home/ci"])
    }

    func testOtherSettingsStillGetTheValue() throws {
        let pipeline = try SpecFixtures.pipeline(
            "parameters: { p: A }\nlayers: { l: { plugin: xcodebuild-test, scheme: \"${p} UI\" } }")
        XCTAssertEqual(pipeline.layers[0].settings["scheme"], .string("A UI"))
        XCTAssertEqual(pipeline.layers[0].shellParameters, [:])
    }

    func testReferencesThatStayOneWordAreAccepted() throws {
        let accepted = [
            "cmd --flag=${p}", "cmd a${p}b ${p}/file", "cmd $(echo ${p})", "cmd \"$(echo ${p})\"",
            "cmd 'a '${p}' b' \"c \"${p}\" d\"", "cmd # it's ${p} in a comment", "case ${p} in a) ;; esac",
            "cat <<EOF\n      plain\n      EOF\n      echo ${p}", "echo \"$${HOME}\" $${HOME} ${p}",
        ]
        for command in accepted {
            XCTAssertNoThrow(try layer(command), command)
        }
    }

    func testAReferenceInsideQuotesOrWhereItWouldNotBeOneWordIsRefusedAtItsPosition() {
        let refused: [(command: String, column: Int, says: String)] = [
            ("grep '${p}' f", 13, "inside single quotes"),
            ("echo \"a ${p} b\"", 15, "inside double quotes"),
            ("echo \"${p}\"", 13, "inside double quotes"),
            ("echo $'a ${p}'", 16, "inside single quotes"),
            ("echo `ls ${p}`", 16, "inside `…`"),
            ("echo $(( ${p} + 1 ))", 16, "inside $((…))"),
            ("echo \\${p}", 13, "follows a backslash"),
            ("echo $${v:-${p}}", 18, "inside the shell's own"),
            ("echo \"$(echo '${p}')\"", 21, "inside single quotes"),
        ]
        for entry in refused {
            let found = errors(entry.command)
            XCTAssertEqual(found.count, 1, "\(entry.command): \(found)")
            let first = found.first ?? ""
            XCTAssertTrue(first.hasPrefix("pipelines/test.yml:7:\(entry.column): error: layers.check.run: "), first)
            XCTAssertTrue(first.contains(entry.says), first)
        }
        let hereDocument = errors("cat <<EOF\n      a ${p}\n      EOF")
        XCTAssertEqual(hereDocument.count, 1)
        XCTAssertTrue(hereDocument.first?.hasPrefix("pipelines/test.yml:8:9: error:") == true, "\(hereDocument)")
        XCTAssertTrue(hereDocument.first?.contains("here-document") == true)
        let second = errors("cat <<A <<-'B'\n      a\n      A\n      b ${p}\n      B\n      echo ${p}")
        XCTAssertEqual(second.count, 1, "only the reference in the second body: \(second)")
        XCTAssertTrue(second.first?.hasPrefix("pipelines/test.yml:10:9: error:") == true, "\(second)")
    }

    func testTheRefusalSaysWhatToWriteInstead() {
        XCTAssertEqual(
            errors("grep '${p}' f"),
            [
                "pipelines/test.yml:7:13: error: layers.check.run: '${p}' is inside single quotes, where the shell "
                    + "would not read the value; close the quotes before it and reopen them after ('a '${p}' b'): "
                    + "Pipe quotes the value"
            ])
    }

    func testNamesThatBecomeTheSameVariableAreRefused() {
        let both = SpecFixtures.errors(
            "parameters:\n  a-b: x\n  a_b: y\nlayers: { l: { plugin: shell, run: \"echo ${a-b} ${a_b}\" } }")
        XCTAssertTrue(
            both.contains {
                $0.hasPrefix(
                    "pipelines/test.yml:3:3: error: parameters.a_b: 'a_b' and 'a-b' would both be the shell "
                        + "variable PIPE_PARAM_a_b")
            }, "\(both)")
        let withEnvironment = SpecFixtures.errors(
            "parameters:\n  only-testing: x\nlayers: { l: { plugin: shell, run: \"echo ${only-testing} ${only_testing}\" } }",
            environment: ["only_testing": "y"])
        XCTAssertEqual(withEnvironment.count, 1, "\(withEnvironment)")
        XCTAssertTrue(
            withEnvironment.first?.contains(
                "'${only_testing}' and '${only-testing}' would both be the shell variable PIPE_PARAM_only_testing")
                == true, "\(withEnvironment)")
    }

    func testANulByteIsRefused() {
        let found = errors("echo ${p}", parameters: ["p": "a\u{0}id"])
        XCTAssertEqual(
            found,
            [
                "pipelines/test.yml:2:3: error: parameters.p: the value of --param p holds a NUL byte, which no "
                    + "command line or environment variable can carry; remove it"
            ])
    }

    func testValidatingWithoutAValueStillChecksPositions() {
        let loader = SpecFixtures.loader
        let yaml = "parameters: { p: { required: true } }\nlayers: { l: { plugin: shell, run: \"echo '${p}'\" } }"
        let check = loader.validate(yaml: yaml, file: "pipelines/test.yml")
        XCTAssertTrue(check.problems.contains { $0.description.contains("inside single quotes") }, "\(check.problems)")
        let fine = loader.validate(
            yaml: "parameters: { p: { required: true } }\nlayers: { l: { plugin: shell, run: \"echo ${p}\" } }",
            file: "pipelines/test.yml")
        XCTAssertFalse(fine.problems.contains { $0.severity == .error }, "\(fine.problems)")
    }

    func testNamingTheVariableItselfCountsAsAUse() {
        let check = SpecFixtures.loader.validate(
            yaml:
                "parameters: { flags: \"-v\" }\nlayers: { l: { plugin: shell, run: \"swift test $PIPE_PARAM_flags\" } }",
            file: "pipelines/test.yml")
        XCTAssertTrue(check.problems.isEmpty, "\(check.problems)")
        let longer = SpecFixtures.loader.validate(
            yaml: "parameters: { f: x }\nlayers: { l: { plugin: shell, run: \"echo $PIPE_PARAM_flags\" } }",
            file: "pipelines/test.yml")
        XCTAssertEqual(longer.warnings.count, 1, "PIPE_PARAM_f is not named by $PIPE_PARAM_flags: \(longer.problems)")
    }
}

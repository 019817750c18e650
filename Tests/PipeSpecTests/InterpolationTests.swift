import Foundation
import PipeCore
import PipeSpec
import XCTest

final class InterpolationTests: XCTestCase {
    private let declared = """
        parameters:
          scheme: { default: Reader }
          ref: { required: true }

        """

    func testParametersFillStringsAndTheCommandLineWins() throws {
        let pipeline = try SpecFixtures.pipeline(
            declared + """
                repository: { ref: "${ref}" }
                layers:
                  logic: { plugin: xcodebuild-test, scheme: "${scheme}-Tests (${ref})" }
                """, parameters: ["ref": "main"])
        XCTAssertEqual(pipeline.repository.ref, "main")
        XCTAssertEqual(pipeline.layers[0].settings["scheme"], .string("Reader-Tests (main)"))
        XCTAssertEqual(pipeline.parameters, ["scheme": "Reader", "ref": "main"])

        let overridden = try SpecFixtures.pipeline(
            declared
                + "repository: { ref: \"${ref}\" }\nlayers: { l: { plugin: xcodebuild-test, scheme: \"${scheme}\" } }",
            parameters: ["ref": "v2", "scheme": "Reader UI"])
        XCTAssertEqual(overridden.layers[0].settings["scheme"], .string("Reader UI"))
        XCTAssertEqual(overridden.parameters, ["scheme": "Reader UI", "ref": "v2"])
    }

    func testEnvironmentFillsUndeclaredNamesButIsNotRecorded() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            parameters: { scheme: Reader }
            simulator: { udid: "${SIM_UDID}" }
            layers:
              logic: { plugin: xcodebuild-test, scheme: "${scheme}" }
            """, environment: ["SIM_UDID": "90052AC6-4B8A-4C1B-9E7A-3F1D2B8C4E51", "scheme": "FromEnvironment"])
        XCTAssertEqual(pipeline.simulator.udid, "90052AC6-4B8A-4C1B-9E7A-3F1D2B8C4E51")
        XCTAssertEqual(pipeline.layers[0].settings["scheme"], .string("Reader"), "a declared parameter wins")
        XCTAssertEqual(pipeline.parameters, ["scheme": "Reader"], "environment values are never recorded")
    }

    func testDollarDollarBraceEscapesAndOtherDollarsStay() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            layers:
              build: { plugin: shell, run: "echo $${HOME} $HOME $$ costs $5 $" }
            """)
        XCTAssertEqual(pipeline.layers[0].settings["run"], .string("echo ${HOME} $HOME $$ costs $5 $"))
    }

    func testSubstitutedTextIsNeverInterpolatedAgain() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            parameters: { note: "none" }
            layers:
              build: { plugin: xcodebuild-test, scheme: "echo ${note}" }
            """, parameters: ["note": "${HOME} and $${x}"], environment: ["HOME": "/root"])
        XCTAssertEqual(pipeline.layers[0].settings["scheme"], .string("echo ${HOME} and $${x}"))
        let fromEnvironment = try SpecFixtures.pipeline(
            "layers: { b: { plugin: xcodebuild-test, scheme: \"${A}\" } }", environment: ["A": "${B}", "B": "no"])
        XCTAssertEqual(fromEnvironment.layers[0].settings["scheme"], .string("${B}"))
    }

    func testUnknownVariablesAreReportedAtTheirOwnPosition() {
        XCTAssertEqual(
            SpecFixtures.errors(
                declared + """
                    layers:
                      logic:
                        plugin: shell
                        run: "café ${scheme} ${shceme} ${NOPE}"
                      other:
                        plugin: shell
                        run: |
                          echo first
                          echo ${missing}
                    """, parameters: ["ref": "x"]),
            [
                "pipelines/test.yml:7:26: error: layers.logic.run: '${shceme}' is neither a declared parameter nor an "
                    + "environment variable; did you mean '${scheme}'?",
                "pipelines/test.yml:7:36: error: layers.logic.run: '${NOPE}' is neither a declared parameter nor an "
                    + "environment variable; declare it under 'parameters:' or set it in the environment (write '$${' "
                    + "for a literal '${')",
                "pipelines/test.yml:12:12: error: layers.other.run: '${missing}' is neither a declared parameter nor an "
                    + "environment variable; declare it under 'parameters:' or set it in the environment (write '$${' "
                    + "for a literal '${')",
            ])
    }

    func testMalformedReferences() {
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                layers:
                  a: { plugin: shell, run: "x ${1abc} y" }
                  b: { plugin: shell, run: "x ${open" }
                """),
            [
                "pipelines/test.yml:2:31: error: layers.a.run: '${1abc}' is not a variable name: use letters, digits, "
                    + "'_' and '-', starting with a letter or '_' (write '$${' for a literal '${')",
                "pipelines/test.yml:3:31: error: layers.b.run: '${' is never closed; write '${name}', or '$${' for a "
                    + "literal '${'",
            ])
    }

    func testRequiredParameterWithoutValueTellsHowToPassIt() {
        XCTAssertEqual(
            SpecFixtures.errors(
                declared + "repository: { ref: \"${ref}\" }\nlayers: { a: { plugin: shell, run: \"${scheme}\" } }"),
            ["pipelines/test.yml:3:3: error: parameters.ref: required parameter has no value; pass --param ref=VALUE"])
    }

    func testUnknownCommandLineParameterSuggestsTheNearestDeclaredOne() {
        let yaml = declared + "repository: { ref: \"${ref}\" }\nlayers: { a: { plugin: shell, run: \"${scheme}\" } }"
        XCTAssertEqual(
            SpecFixtures.errors(yaml, parameters: ["ref": "main", "shceme": "X", "color": "red"]),
            [
                "pipelines/test.yml:1:1: error: --param color: no parameter 'color' is declared; declared parameters: "
                    + "'ref' or 'scheme'",
                "pipelines/test.yml:1:1: error: --param shceme: no parameter 'shceme' is declared; did you mean "
                    + "'scheme'?",
            ])
        XCTAssertEqual(
            SpecFixtures.errors("layers: { a: { plugin: shell, run: x } }", parameters: ["ref": "main"]),
            [
                "pipelines/test.yml: error: --param ref: no parameter 'ref' is declared; this pipeline declares no "
                    + "parameters (declare it under 'parameters:')"
            ])
    }

    func testTypedValuesAreCheckedAfterInterpolation() throws {
        let yaml = """
            parameters: { attempts: "2", limit: 90s }
            layers:
              logic: { plugin: xcodebuild-test, scheme: R, retries: "${attempts}", timeout: "${limit}" }
            """
        let pipeline = try SpecFixtures.pipeline(yaml, parameters: ["attempts": "3"])
        XCTAssertEqual(pipeline.layers[0].settings["retries"], .integer(3))
        XCTAssertEqual(pipeline.layers[0].timeoutSeconds, 90)
        XCTAssertEqual(
            SpecFixtures.errors(yaml, parameters: ["attempts": "three", "limit": "soon"]),
            [
                "pipelines/test.yml:3:57: error: layers.logic.retries: expected an integer, found 'three' after "
                    + "interpolation",
                "pipelines/test.yml:3:81: error: layers.logic.timeout: expected a duration such as 90s, 10m, 1h30m, 14d, or "
                    + "a number of seconds, found 'soon'",
            ])
    }

    func testParameterDeclarationErrors() {
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                parameters:
                  a: {}
                  b: { required: true, default: x }
                  c d: x
                  e: { default: x, help: y }
                  f: [x]
                layers: { l: { plugin: shell, run: "${a}${b}${e}${f}" } }
                """, parameters: ["b": "1"]),
            [
                "pipelines/test.yml:2:3: error: parameters.a: give it a 'default:' or 'required: true'",
                "pipelines/test.yml:3:33: error: parameters.b.default: a required parameter has no default; remove "
                    + "'default:' or 'required: true'",
                "pipelines/test.yml:4:3: error: parameters.c d: 'c d' cannot name a parameter: use letters, digits, '_' "
                    + "and '-', starting with a letter or '_'",
                "pipelines/test.yml:5:20: error: parameters.e.help: unknown key; expected one of 'default', "
                    + "'description' or 'required'",
                "pipelines/test.yml:6:6: error: parameters.f: expected a default value or a mapping with 'default:' or "
                    + "'required:', found a list",
            ])
    }

    func testValidateReportsMissingRequiredParametersAsWarnings() throws {
        let check = SpecFixtures.loader.validate(
            yaml: declared + """
                repository: { ref: "${ref}" }
                layers:
                  logic: { plugin: xcodebuild-test, scheme: "${scheme}", timeout: "${ref}" }
                """, file: "pipelines/test.yml")
        XCTAssertTrue(check.isValid, check.problems.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(
            check.warnings.map(\.description),
            [
                "pipelines/test.yml:3:3: warning: parameters.ref: required parameter has no value here; 'pipe run' "
                    + "needs --param ref=VALUE"
            ])
        let pipeline = try XCTUnwrap(check.pipeline)
        XCTAssertEqual(pipeline.repository.ref, "${ref}", "the reference stays visible where no value was given")
        XCTAssertNil(pipeline.layers[0].timeoutSeconds, "a typed value without its parameter is not checked")
        XCTAssertEqual(pipeline.parameters, ["scheme": "Reader"])
    }

    func testValidateStillReportsErrorsAndUnusedParameters() {
        let check = SpecFixtures.loader.validate(
            yaml: declared + "layers: { a: { plugin: shell, run: x, timout: 1m } }\n", file: "pipelines/test.yml")
        XCTAssertFalse(check.isValid)
        XCTAssertNil(check.pipeline)
        XCTAssertEqual(
            check.problems.map(\.description),
            [
                "pipelines/test.yml:2:3: warning: parameters.scheme: declared but never used; use it as '${scheme}' or "
                    + "remove it",
                "pipelines/test.yml:3:3: warning: parameters.ref: required parameter has no value here; 'pipe run' "
                    + "needs --param ref=VALUE",
                "pipelines/test.yml:3:3: warning: parameters.ref: declared but never used; use it as '${ref}' or remove "
                    + "it",
                "pipelines/test.yml:4:39: error: layers.a.timout: unknown key; did you mean 'timeout'?",
            ])
    }
}

extension InterpolationTests {
    func testEmptyDefaultIsTheEmptyText() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            parameters:
              suffix: { default: }
              label: ""
            layers: { a: { plugin: xcodebuild-test, scheme: "make${suffix}${label}" } }
            """)
        XCTAssertEqual(pipeline.layers[0].settings["scheme"], .string("make"))
        XCTAssertEqual(pipeline.parameters, ["suffix": "", "label": ""])
    }
}

import PipeCore
import PipeSpec
import XCTest

/// Quoted and plain scalars: what each means, and how a wrong one is reported.
final class ScalarTypingTests: XCTestCase {
    func testPlainScalarsResolveLikeYAML11() {
        XCTAssertEqual(YAMLScalar("16.2").resolved, .number(16.2))
        XCTAssertEqual(YAMLScalar("16.2", style: .doubleQuoted).resolved, .string)
        XCTAssertEqual(YAMLScalar("yes").resolved, .boolean(true))
        XCTAssertEqual(YAMLScalar("yes", style: .singleQuoted).resolved, .string)
        for text in ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"] {
            XCTAssertEqual(YAMLScalar.resolvePlain(text), .boolean(true), text)
        }
        for text in ["false", "False", "no", "NO", "off", "Off"] {
            XCTAssertEqual(YAMLScalar.resolvePlain(text), .boolean(false), text)
        }
        for text in ["", "~", "null", "Null", "NULL"] {
            XCTAssertEqual(YAMLScalar.resolvePlain(text), .null, text)
        }
        XCTAssertEqual(YAMLScalar.resolvePlain("22"), .integer(22))
        XCTAssertEqual(YAMLScalar.resolvePlain("-7"), .integer(-7))
        XCTAssertEqual(YAMLScalar.resolvePlain("0x1F"), .integer(31))
        XCTAssertEqual(YAMLScalar.resolvePlain("0o17"), .integer(15))
        XCTAssertEqual(YAMLScalar.resolvePlain("1_000"), .integer(1000))
        XCTAssertEqual(YAMLScalar.resolvePlain("1e3"), .number(1000))
        XCTAssertEqual(YAMLScalar.resolvePlain(".inf"), .number(.infinity))
        for text in ["y", "n", "1.2.3", "0x1G", "17.5.1", "iPhone 15", "_1", "+", "1h"] {
            XCTAssertEqual(YAMLScalar.resolvePlain(text), .string, text)
        }
    }

    func testTextKeepsTheSourceSpellingOfPlainNumbers() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            host:
              labels: { quoted: "16.2", plain: 16.2, trailing: 16.20, whole: 16, octal: 017 }
            simulator: { runtime: 17.10 }
            layers: { a: { plugin: shell, run: 42 } }
            """)
        XCTAssertEqual(
            pipeline.hostSelection.labels,
            ["quoted": "16.2", "plain": "16.2", "trailing": "16.20", "whole": "16", "octal": "017"])
        XCTAssertEqual(pipeline.simulator.runtime, "17.10")
        XCTAssertEqual(pipeline.layers[0].settings["run"], .string("42"))
    }

    func testPlainBooleanWhereTextIsExpectedAsksForQuotes() throws {
        XCTAssertEqual(
            SpecFixtures.errors("host: { labels: { gpu: yes } }\nlayers: { a: { plugin: shell, run: no } }\n"),
            [
                "pipelines/test.yml:1:24: error: host.labels.gpu: expected text, found the boolean 'yes'; quote it "
                    + "(\"yes\") to mean the text",
                "pipelines/test.yml:2:36: error: layers.a.run: expected text, found the boolean 'no'; quote it (\"no\") "
                    + "to mean the text",
            ])
        let quoted = try SpecFixtures.pipeline(
            "host: { labels: { gpu: \"yes\" } }\nlayers: { a: { plugin: shell, run: 'no' } }\n")
        XCTAssertEqual(quoted.hostSelection.labels, ["gpu": "yes"])
        XCTAssertEqual(quoted.layers[0].settings["run"], .string("no"))
    }

    func testBooleansAndIntegersRefuseQuotedText() throws {
        let pipeline = try SpecFixtures.pipeline(
            "layers: { a: { plugin: xcodebuild-test, scheme: R, parallel: yes, retries: 0x2 } }\n")
        XCTAssertEqual(pipeline.layers[0].settings["parallel"], .boolean(true))
        XCTAssertEqual(pipeline.layers[0].settings["retries"], .integer(2))
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                layers:
                  a:
                    plugin: xcodebuild-test
                    scheme: R
                    parallel: "on"
                    retries: "2"
                  b:
                    plugin: xcodebuild-test
                    scheme: R
                    parallel: 1
                    retries: 2.5
                """),
            [
                "pipelines/test.yml:5:15: error: layers.a.parallel: expected a boolean (true or false), found the "
                    + "quoted text \"on\"; remove the quotes",
                "pipelines/test.yml:6:14: error: layers.a.retries: expected an integer, found the quoted text \"2\"; "
                    + "remove the quotes",
                "pipelines/test.yml:10:15: error: layers.b.parallel: expected a boolean (true or false), found the "
                    + "integer 1",
                "pipelines/test.yml:11:14: error: layers.b.retries: expected an integer, found the number 2.5",
            ])
    }

    func testEmptyValuesCountAsAbsent() throws {
        let pipeline = try SpecFixtures.pipeline(
            """
            description:
            simulator: { device: ~ }
            layers: { a: { plugin: xcodebuild-test, scheme: R, configuration: null, only-testing: } }
            """)
        XCTAssertNil(pipeline.description)
        XCTAssertNil(pipeline.simulator.deviceName)
        XCTAssertEqual(pipeline.layers[0].settings, ["scheme": .string("R")])
        XCTAssertEqual(
            SpecFixtures.errors("layers: { a: { plugin: xcodebuild-test, scheme: } }\n"),
            [
                "pipelines/test.yml:1:49: error: layers.a.scheme: needs a value; scheme (string): the shared scheme to "
                    + "test"
            ])
        XCTAssertEqual(
            SpecFixtures.errors("layers: { a: { plugin: xcodebuild-test, scheme: \"  \" } }\n"),
            ["pipelines/test.yml:1:49: error: layers.a.scheme: must not be empty"])
    }

    func testListsAcceptASingleValue() throws {
        let pipeline = try SpecFixtures.pipeline(
            "layers: { a: { plugin: xcodebuild-test, scheme: R, only-testing: ReaderTests/ReadingIDTests } }\n")
        XCTAssertEqual(pipeline.layers[0].settings["only-testing"], .strings(["ReaderTests/ReadingIDTests"]))
    }

    func testDurations() throws {
        let cases: [(String, Double)] = [
            ("90s", 90), ("10m", 600), ("1h", 3600), ("1h30m", 5400), ("1.5h", 5400), ("45", 45), ("2.5", 2.5),
            ("\"120\"", 120), ("5d", 432_000), ("1d12h", 129_600),
        ]
        for (text, seconds) in cases {
            let pipeline = try SpecFixtures.pipeline("layers: { a: { plugin: shell, run: x, timeout: \(text) } }\n")
            XCTAssertEqual(pipeline.layers[0].timeoutSeconds, seconds, text)
        }
        for text in ["0", "-5", "0s", "10 minutes", "5w", "m", "1h30", "1..5s", ".inf"] {
            XCTAssertEqual(
                SpecFixtures.errors("layers: { a: { plugin: shell, run: x, timeout: \"\(text)\" } }\n"),
                [
                    "pipelines/test.yml:1:48: error: layers.a.timeout: expected a duration such as 90s, 10m, 1h30m, 14d, or "
                        + "a number of seconds, found '\(text)'"
                ], text)
        }
        XCTAssertEqual(DurationParser.seconds(from: "2h15m30s"), 8130)
        XCTAssertNil(DurationParser.seconds(from: ""))
    }
}

extension ScalarTypingTests {
    func testEmptyListEntriesAndMapValuesAreReported() {
        XCTAssertEqual(
            SpecFixtures.errors(
                """
                host: { labels: { xcode: } }
                layers:
                  a:
                    plugin: xcodebuild-test
                    scheme: R
                    only-testing:
                      - ReaderTests
                      -
                """),
            [
                "pipelines/test.yml:1:26: error: host.labels.xcode: needs a value (write \"\" for the empty text)",
                "pipelines/test.yml:8:8: error: layers.a.only-testing[1]: empty entry; write a value or remove the entry",
            ])
    }
}

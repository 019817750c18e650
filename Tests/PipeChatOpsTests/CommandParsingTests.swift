import PipeChatOps
import PipeCore
import XCTest

/// Forms, words with quotes, and the `/pipe` commands.
final class CommandParsingTests: XCTestCase {
    func testFormFieldsAreDecoded() throws {
        let form = try FormDecoder.dictionary(
            Array(
                "command=%2Fpipe&text=run+app-intents+ref%3Dmain+note%3D%22a+b%22&user_id=U1&user_name=alice&empty="
                    .utf8))
        XCTAssertEqual(form["command"], "/pipe")
        XCTAssertEqual(form["text"], "run app-intents ref=main note=\"a b\"")
        XCTAssertEqual(form["empty"], "")
        let command = try SlashCommand(form: form)
        XCTAssertEqual(command.userID, "U1")
        XCTAssertEqual(command.requester, "alice (U1)")
        XCTAssertEqual(try FormDecoder.dictionary(Array("t=%E3%83%91%E3%82%A4%E3%83%97".utf8))["t"], "パイプ")
    }

    func testAmbiguousOrBrokenFormsAreRefused() {
        for body in ["a=1&a=2", "a=%2", "a=%zz", "=x", "a=%FF%FE"] {
            XCTAssertThrowsError(try FormDecoder.decode(Array(body.utf8)), body)
        }
        XCTAssertThrowsError(try SlashCommand(form: ["command": "/pipe", "text": "help"]), "no user_id")
    }

    func testWordsSplitAsAPersonExpects() throws {
        XCTAssertEqual(try CommandTokenizer.words("  run   app-intents  "), ["run", "app-intents"])
        XCTAssertEqual(
            try CommandTokenizer.words(
                #"signoff last shortcuts pass note="found it, after reopening" steps='a "b" c'"#),
            ["signoff", "last", "shortcuts", "pass", "note=found it, after reopening", #"steps=a "b" c"#])
        XCTAssertEqual(try CommandTokenizer.words(#"note="say \"hi\" \\ ok""#), [#"note=say "hi" \ ok"#])
        XCTAssertEqual(
            try CommandTokenizer.words("note=\u{201C}curly quotes\u{201D} x=\u{2018}y z\u{2019}"),
            [
                "note=curly quotes", "x=y z",
            ])
        XCTAssertEqual(try CommandTokenizer.words(#"a "" b"#), ["a", "", "b"])
        XCTAssertEqual(try CommandTokenizer.words("a\u{00A0}b\tc\nd"), ["a", "b", "c", "d"])
        XCTAssertThrowsError(try CommandTokenizer.words(#"note="never closed"#)) { error in
            XCTAssertTrue("\(error)".contains("never closed"), "\(error)")
        }
    }

    func testCommandsParse() throws {
        XCTAssertEqual(
            try ChatCommandParser.parse(#"run app-intents ref=main scheme="Reader App" retries=2"#),
            .run(
                pipeline: "app-intents", ref: "main",
                parameters: [KeyValuePair("scheme", "Reader App"), KeyValuePair("retries", "2")]))
        XCTAssertEqual(
            try ChatCommandParser.parse("RUN app-intents"), .run(pipeline: "app-intents", ref: nil, parameters: []))
        XCTAssertEqual(try ChatCommandParser.parse("status"), .status(run: nil))
        XCTAssertEqual(try ChatCommandParser.parse("status 20261129-14"), .status(run: "20261129-14"))
        XCTAssertEqual(try ChatCommandParser.parse("runs app-intents"), .runs(pipeline: "app-intents"))
        XCTAssertEqual(
            try ChatCommandParser.parse(
                #"signoff last shortcuts FAIL os_version=17.5 steps="open, search" note="not listed""#),
            .signoff(
                run: "last", layer: "shortcuts", result: .fail,
                fields: [KeyValuePair("os_version", "17.5"), KeyValuePair("steps", "open, search")], note: "not listed")
        )
        XCTAssertEqual(try ChatCommandParser.parse("gate last release"), .gate(run: "last", gate: .release))
        XCTAssertEqual(try ChatCommandParser.parse("hosts"), .hosts)
        XCTAssertEqual(
            try ChatCommandParser.parse("approve github 42"), .approve(forge: "github", number: 42, headSHA: nil))
        XCTAssertEqual(
            try ChatCommandParser.parse("approve gitlab !7 " + String(repeating: "AB", count: 20)),
            .approve(forge: "gitlab", number: 7, headSHA: String(repeating: "ab", count: 20)))
        XCTAssertEqual(try ChatCommandParser.parse(""), .help(topic: nil))
        XCTAssertEqual(try ChatCommandParser.parse("help run"), .help(topic: "run"))
    }

    func testMistakesAreExplainedWithTheNearestCommand() {
        func message(_ text: String) -> (String, String?) {
            do {
                _ = try ChatCommandParser.parse(text)
                return ("parsed", nil)
            } catch {
                return (error.message, error.command)
            }
        }
        XCTAssertEqual(message("rnu app-intents").0, "unknown command 'rnu'; did you mean 'run'?")
        XCTAssertEqual(message("sattus").0, "unknown command 'sattus'; did you mean 'status'?")
        XCTAssertEqual(message("deploy prod").0, "unknown command 'deploy'")
        XCTAssertEqual(message("run").1, "run")
        XCTAssertTrue(message("run app-intents main").0.contains("'main' is not key=value"))
        XCTAssertTrue(message("run app-intents ref=").0.contains("ref= is empty"))
        XCTAssertTrue(message("run app-intents a=1 a=2").0.contains("given twice"))
        XCTAssertTrue(message("run app-intents $(id)=1").0.contains("is not a key"))
        XCTAssertTrue(message("signoff last shortcuts maybe").0.contains("say pass or fail"))
        XCTAssertTrue(message("gate last deploy").0.contains("merge or release"))
        XCTAssertTrue(message("hosts all").0.contains("one word too many"))
        XCTAssertEqual(message("approve github").1, "approve")
        XCTAssertTrue(message("approve github 0").0.contains("not a pull request number"))
        XCTAssertTrue(message("approve github #x").0.contains("not a pull request number"))
        XCTAssertTrue(message("approve github 42 3f2a91c").0.contains("not a full commit id"))
        XCTAssertTrue(message("approve github 42 \(String(repeating: "a", count: 40)) now").0.contains("too many"))
        XCTAssertTrue(ChatCommandParser.help().contains("/pipe signoff <run> <layer> pass|fail"))
    }

    func testInjectionStringsStayPlainValues() throws {
        let text = #"run app-intents ref='main; rm -rf ~' scheme="$(touch /tmp/x)`id`" note='a"b'"#
        XCTAssertEqual(
            try ChatCommandParser.parse(text),
            .run(
                pipeline: "app-intents", ref: "main; rm -rf ~",
                parameters: [KeyValuePair("scheme", "$(touch /tmp/x)`id`"), KeyValuePair("note", #"a"b"#)]))
    }
}

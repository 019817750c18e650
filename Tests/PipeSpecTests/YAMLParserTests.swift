import Foundation
import PipeSpec
import XCTest

final class YAMLParserTests: XCTestCase {
    private func parse(_ yaml: String) throws -> YAMLNode {
        try XCTUnwrap(try YAMLParser.parse(yaml, file: "test.yml"))
    }

    private func syntaxError(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try YAMLParser.parse(yaml, file: "test.yml")
            XCTFail("expected a syntax error", file: file, line: line)
            return ""
        } catch {
            XCTAssertEqual(error.problems.count, 1, file: file, line: line)
            return error.description
        }
    }

    func testTreeKeepsOrderStylesAndOneBasedMarks() throws {
        let root = try parse(
            """
            zeta: plain
            alpha: "double"
            mid:
              - 'single'
              - |
                block
            """)
        let entries = try XCTUnwrap(root.mapping)
        XCTAssertEqual(entries.map(\.key.keyText), ["zeta", "alpha", "mid"], "mappings keep file order")
        XCTAssertEqual(entries[0].key.start, SourceMark(line: 1, column: 1))
        XCTAssertEqual(entries[0].value.start, SourceMark(line: 1, column: 7))
        XCTAssertEqual(entries[0].value.scalar, YAMLScalar("plain", style: .plain))
        XCTAssertEqual(entries[1].value.scalar, YAMLScalar("double", style: .doubleQuoted))
        XCTAssertEqual(entries[1].value.start, SourceMark(line: 2, column: 8), "a quoted scalar starts at its quote")
        let items = try XCTUnwrap(entries[2].value.sequence)
        XCTAssertEqual(entries[2].value.start, SourceMark(line: 4, column: 3))
        XCTAssertEqual(
            items.map(\.scalar), [YAMLScalar("single", style: .singleQuoted), YAMLScalar("block", style: .literal)])
        XCTAssertEqual(items.map(\.start), [SourceMark(line: 4, column: 5), SourceMark(line: 5, column: 5)])
    }

    func testColumnsCountCharactersNotBytes() throws {
        let root = try parse("titre: « café »\nnext: x\nお名前: 名前\n")
        let entries = try XCTUnwrap(root.mapping)
        XCTAssertEqual(entries[0].value.end, SourceMark(line: 1, column: 16))
        XCTAssertEqual(entries[2].value.start, SourceMark(line: 3, column: 6))
    }

    func testWindowsLineEndingsCountOneLineEach() throws {
        let root = try parse("a: 1\r\nb:\r\n  c: 2\r\n")
        let b = try XCTUnwrap(root.mapping?[1].value.mapping)
        XCTAssertEqual(b[0].key.start, SourceMark(line: 3, column: 3))
    }

    func testEmptyAndCommentOnlyInputHoldNoDocument() throws {
        XCTAssertNil(try YAMLParser.parse("", file: "test.yml"))
        XCTAssertNil(try YAMLParser.parse("# only a comment\n\n", file: "test.yml"))
        XCTAssertEqual(try parse("---\na: 1\n...\n").mapping?.count, 1, "one explicit document is fine")
    }

    func testDuplicateKeysAreKeptAndFoundWithTheirPaths() throws {
        let root = try parse(
            """
            a: 1
            b:
              - { x: 1, x: 2 }
            a: 3
            """)
        XCTAssertEqual(root.mapping?.count, 3, "the repeated key stays in the tree")
        let duplicates = root.duplicateKeys()
        XCTAssertEqual(duplicates.map(\.path.description), ["b[0].x", "a"])
        XCTAssertEqual(duplicates.map(\.first), [SourceMark(line: 3, column: 7), SourceMark(line: 1, column: 1)])
        XCTAssertEqual(
            duplicates.map(\.repeated.start), [SourceMark(line: 3, column: 13), SourceMark(line: 4, column: 1)])
    }

    func testAliasesAreResolvedAndMergeKeysApplied() throws {
        let root = try parse(
            """
            defaults: &defaults
              plugin: xcodebuild-test
              scheme: Reader
            tests: &tests [A, B]
            logic:
              <<: *defaults
              scheme: Other
              only-testing: *tests
            """)
        let logic = try XCTUnwrap(root.mapping?[2].value.mapping)
        XCTAssertEqual(logic.map(\.key.keyText), ["plugin", "scheme", "only-testing"])
        XCTAssertEqual(logic.map { $0.value.scalar?.text }, ["xcodebuild-test", "Other", nil])
        XCTAssertEqual(logic[2].value.sequence?.map(\.scalar?.text), ["A", "B"])
        XCTAssertEqual(logic[0].key.start, SourceMark(line: 2, column: 3), "merged entries point at their definition")
    }

    func testUnknownAliasIsRefused() {
        XCTAssertEqual(
            syntaxError("a: *nowhere\n"),
            "test.yml:1:4: error: the alias `*nowhere` names no anchor; define `&nowhere` before using it\n"
                + "a: *nowhere\n   ^")
    }

    func testMergeOfAScalarIsRefused() {
        XCTAssertEqual(
            syntaxError("base: &b text\nx:\n  <<: *b\n"),
            "test.yml:3:3: error: `<<` merges a mapping or a list of mappings (`<<: *defaults`); this value is neither\n"
                + "  <<: *b\n  ^")
    }

    func testAliasBombIsRefusedQuickly() {
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            yaml += "a\(level): &a\(level) [\(refs)]\n"
        }
        let started = Date()
        let message = syntaxError(yaml)
        XCTAssertTrue(message.contains("aliases expand to more than 100000 nodes"), message)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
    }

    func testSeveralDocumentsAreRefused() {
        XCTAssertEqual(
            syntaxError("layers: {}\n---\nlayers: {}\n"),
            "test.yml:2:1: error: this file holds more than one YAML document (a new one starts here with `---`); keep "
                + "one document per file\n---\n^")
    }

    func testTabIndentationPointsAtTheTab() {
        XCTAssertEqual(
            syntaxError("layers:\n\tlogic:\n\t\tplugin: shell\n"),
            "test.yml:2:1: error: invalid YAML: found character that cannot start any token (while scanning for the "
                + "next token at line 2, column 1); YAML does not allow tabs for indentation: indent with spaces\n"
                + "\tlogic:\n^")
        XCTAssertEqual(
            syntaxError("layers:\n  logic:\n  \tplugin: shell\n"),
            "test.yml:3:3: error: invalid YAML: found character that cannot start any token (while scanning for the "
                + "next token at line 3, column 3); YAML does not allow tabs for indentation: indent with spaces\n"
                + "  \tplugin: shell\n  ^")
    }

    func testUnclosedQuotePointsAtTheOpeningQuote() {
        XCTAssertEqual(
            syntaxError("layers:\n  logic:\n    scheme: \"Reader\n    plugin: shell\n"),
            "test.yml:3:13: error: invalid YAML: found unexpected end of stream (while scanning a quoted scalar at line "
                + "3, column 13); it is never closed: add the closing character\n"
                + "    scheme: \"Reader\n            ^")
    }

    func testUnclosedFlowListSuggestsQuoting() {
        XCTAssertEqual(
            syntaxError("needs: [logic, ${x}]\n"),
            "test.yml:1:17: error: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence at "
                + "line 1, column 8); inside [ ] or { }, quote values that hold '${', braces, brackets or commas\n"
                + "needs: [logic, ${x}]\n                ^")
    }

    func testUnsupportedTagIsRefusedAndStrTagMakesText() throws {
        XCTAssertEqual(
            syntaxError("a: !secret x\n"),
            "test.yml:1:4: error: the tag `!secret` is not supported; remove it (only `!!str` is useful here)\n"
                + "a: !secret x\n   ^")
        let root = try parse("a: !!str 16.2\nb: ! yes\n")
        XCTAssertEqual(root.mapping?.map { $0.value.scalar?.resolved }, [.string, .string])
    }

    func testInvalidUTF8IsReportedWithItsPosition() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipespec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("latin1.yml")
        try Data("description: caf".utf8 + [0xE9] + Data(" au lait\nlayers: {}\n".utf8)).write(to: file)

        XCTAssertThrowsError(try SpecFixtures.loader.load(path: file)) { error in
            let problems = (error as? SpecErrors)?.problems ?? []
            XCTAssertEqual(problems.count, 1)
            XCTAssertEqual(problems.first?.mark, SourceMark(line: 1, column: 17))
            XCTAssertEqual(
                problems.first?.message,
                "this is not UTF-8 text (invalid trailing UTF-8 octet at byte 0xE9); save the file as UTF-8")
        }
    }

    func testKeysMustBeText() {
        XCTAssertEqual(
            SpecFixtures.errors("? [a, b]\n: c\nlayers: { x: { plugin: shell, run: y } }\n"),
            ["pipelines/test.yml:1:3: error: a key must be text, found a list; write a plain key"])
    }
}

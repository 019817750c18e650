import Foundation
import XCTest

@testable import PipeMacEmulator

/// Linux XCTest lines (a real capture) become the lines XCTest prints on a Mac (written from apple-formats.md 3.2).
final class LinuxXCTestTranslatorTests: XCTestCase {
    private let folder = EmulatorHarness.fixtures.appendingPathComponent("linux-xctest")

    func testRealLinuxOutputBecomesAppleLines() throws {
        let linux = try String(contentsOf: folder.appendingPathComponent("linux.txt"), encoding: .utf8)
        let expected = try String(contentsOf: folder.appendingPathComponent("apple-expected.txt"), encoding: .utf8)
        let output = EmulatorOutput.memory()
        let reporter = XCTestReporter(output: output)
        let translator = LinuxXCTestTranslator(
            reporter: reporter, suiteTargets: ["DoubleTests": "TinyTests"], bundleName: "TinyTests.xctest",
            topSuiteName: "All tests")
        for line in linux.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            translator.consume(String(line))
        }
        XCTAssertEqual(output.text, expected)
        XCTAssertEqual(reporter.tests.map(\.status), ["failed", "passed", "skipped", "passed"])
        XCTAssertEqual(reporter.tests[0].failures.first?.line, 5)
        XCTAssertEqual(
            reporter.tests[0].failures.first?.message, #"XCTAssertEqual failed: ("6") is not equal to ("7")"#)
        XCTAssertEqual(reporter.tests[2].skipReason?.message, "not today")
        XCTAssertEqual(reporter.tests[3].duration, 2.0)
    }

    func testCustomAssertionMessageKeepsItsDash() {
        XCTAssertEqual(
            LinuxXCTestTranslator.appleMessage(#"XCTAssertEqual failed: ("1") is not equal to ("2") - counts differ"#),
            #"XCTAssertEqual failed: ("1") is not equal to ("2") - counts differ"#)
        XCTAssertEqual(LinuxXCTestTranslator.appleMessage("XCTAssertTrue failed - "), "XCTAssertTrue failed")
    }

    func testListedTestNamesParse() {
        XCTAssertEqual(
            SwiftTestRunner.parseListed("ReaderTests.ReadingIDTests/testTrims"),
            TestIdentity(target: "ReaderTests", suite: "ReadingIDTests", name: "testTrims"))
        XCTAssertNil(SwiftTestRunner.parseListed("Listing 4 tests in debug.xctest:"))
        XCTAssertNil(SwiftTestRunner.parseListed(""))
    }
}

import Foundation
import PipeApple
import XCTest

final class XcodeVersionTests: XCTestCase {
    func testRealOutputs() throws {
        let fifteen = try XcodeVersion.parse(try Fixture.text("xcode/version-15.4.txt"))
        XCTAssertEqual(fifteen, XcodeVersion(version: NumericVersion("15.4")!, build: "15F31d"))
        XCTAssertEqual(fifteen.description, "Xcode 15.4 (15F31d)")
        let sixteen = try XcodeVersion.parse(try Fixture.text("xcode/version-16.2.txt"))
        XCTAssertEqual(sixteen.build, "16C5032a")
        XCTAssertGreaterThan(sixteen.version, fifteen.version)
    }

    func testWarningLinesBeforeTheVersionAreSkipped() throws {
        let output =
            "2024-11-10 01:41:29.123 xcodebuild[21632:1200575]  DVTPlugInManager: warning\n"
            + (try Fixture.text("xcode/version-15.4.txt"))
        XCTAssertEqual(try XcodeVersion.parse(output).version, NumericVersion("15.4"))
    }

    func testCommandLineToolsOnlyAndGarbage() throws {
        XCTAssertThrowsError(try XcodeVersion.parse(try Fixture.text("xcode/version-command-line-tools-only.txt"))) {
            guard case .commandLineToolsOnly? = $0 as? XcodeVersionError else { return XCTFail("unexpected \($0)") }
            XCTAssertTrue("\($0)".contains("xcode-select -s"))
        }
        XCTAssertThrowsError(try XcodeVersion.parse("Xcode beta\nBuild version 1\n")) {
            XCTAssertEqual($0 as? XcodeVersionError, .unrecognized("Xcode beta"))
        }
        XCTAssertThrowsError(try XcodeVersion.parse("")) {
            XCTAssertEqual($0 as? XcodeVersionError, .unrecognized(""))
        }
    }
}

import Foundation
import PipeApple
import PipeCore
import XCTest

final class XccovReportTests: XCTestCase {
    func testApplesManPageReport() throws {
        let report = try XccovReport.decode(try Fixture.data("xccov/report-manpage-xcode11.json"))
        XCTAssertEqual([report.coveredLines, report.executableLines], [32, 40])
        let target = try XCTUnwrap(report.targets.first)
        XCTAssertEqual(target.name, "HelloWorld.app")
        XCTAssertEqual(target.moduleName, "HelloWorld")
        XCTAssertFalse(target.isTestBundle)
        XCTAssertEqual([target.coveredLines, target.executableLines], [11, 19])
        XCTAssertEqual(
            target.files,
            [XccovReport.File(path: "/tmp/HelloWorld/HelloWorld/AppDelegate.m", coveredLines: 3, executableLines: 6)])
    }

    func testAMinimumFailsATargetBelowIt() throws {
        let report = try XccovReport.decode(try Fixture.data("xccov/report-manpage-xcode11.json"))
        let verdict = CoverageVerdict.check(
            report, against: CoverageRequirement(minimumPercent: 80, targets: ["HelloWorld"]))
        XCTAssertEqual(verdict.shortfalls, ["coverage of HelloWorld.app 57.89% (11/19 lines) is below the minimum 80%"])
        XCTAssertEqual(verdict.missingTargets, [])
        XCTAssertEqual(verdict.facts, ["coverage.HelloWorld.app": "11/19"])
        let met = CoverageVerdict.check(report, against: CoverageRequirement(minimumPercent: 57.5))
        XCTAssertEqual(met.shortfalls, [])
    }

    func testANamedTargetTheReportLacksIsThePipelinesMistake() throws {
        let report = try XccovReport.decode(try Fixture.data("xccov/report-manpage-xcode11.json"))
        let verdict = CoverageVerdict.check(
            report, against: CoverageRequirement(minimumPercent: 80, targets: ["Reader"]))
        XCTAssertEqual(verdict.missingTargets, ["Reader"])
        XCTAssertEqual(verdict.shortfalls, [], "HelloWorld.app is measured but not held to the minimum")
        XCTAssertEqual(verdict.targets.map(\.isRequired), [false])
        XCTAssertEqual(
            verdict.missingTargetsEvidence(reportTargets: ["HelloWorld.app"]),
            "coverage names Reader, which the coverage report does not have (it has HelloWorld.app); fix "
                + "`coverage.targets` in the pipeline")
    }

    func testTestBundlesAreLeftOutUnlessNamed() {
        let report = XccovReport(
            coveredLines: 30, executableLines: 40,
            targets: [
                .init(name: "Reader.app", coveredLines: 9, executableLines: 19),
                .init(name: "ReaderTests.xctest", coveredLines: 21, executableLines: 21),
            ])
        XCTAssertEqual(
            CoverageVerdict.check(report, against: CoverageRequirement()).targets.map(\.name), ["Reader.app"])
        XCTAssertEqual(
            CoverageVerdict.check(report, against: CoverageRequirement(targets: ["ReaderTests"])).targets.map(\.name),
            ["Reader.app", "ReaderTests.xctest"])
    }

    func testFactsReadBack() {
        let facts = [
            "coverage.Reader.app": "145/200", "coverage.Bad": "x/1", "coverage.Over": "3/2", "host": "mac-1",
        ]
        let targets = CoverageFacts.targets(in: facts)
        XCTAssertEqual(targets.map(\.name), ["Reader.app"])
        XCTAssertEqual(targets.map(\.coveredLines), [145])
        XCTAssertEqual(targets.first?.percent, 72.5)
    }

    func testHostileOrBrokenOutputIsAClearError() {
        XCTAssertEqual(try? XccovReport.decode(Data()), nil)
        XCTAssertThrowsError(try XccovReport.decode(Data("error: Failed to load coverage report\n".utf8))) { error in
            XCTAssertEqual(
                "\(error)",
                "`xcrun xccov view --report --json` did not print JSON; it printed 'error: Failed to load coverage "
                    + "report'; check the host's Xcode (11 or later reads coverage from the result bundle)")
        }
        let negative = #"{"coveredLines": -1, "executableLines": 2, "targets": []}"#
        XCTAssertThrowsError(try XccovReport.decode(Data(negative.utf8))) { error in
            XCTAssertTrue("\(error)".contains("cannot be negative"), "\(error)")
        }
    }

    func testPercentText() {
        XCTAssertEqual(CoverageVerdict.percentText(80), "80%")
        XCTAssertEqual(CoverageVerdict.percentText(57.894736), "57.89%")
    }
}

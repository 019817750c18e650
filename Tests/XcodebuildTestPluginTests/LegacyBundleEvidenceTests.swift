import Foundation
import PipeApple
import PipeCore
import XCTest

@testable import XcodebuildTestPlugin

/// Which hosts read their bundles through the legacy commands, what the script prints, and how exported files are
/// named: by Pipe, never by the host.
final class LegacyBundleEvidenceTests: XCTestCase {
    func testOnlyAnXcodeBefore16UsesTheLegacyCommands() {
        XCTAssertTrue(LegacyBundleEvidence.applies(hostXcode: "Xcode 15.4 (15F31d)"))
        XCTAssertTrue(LegacyBundleEvidence.applies(hostXcode: "Xcode 12.5.1 (12E507)"))
        XCTAssertFalse(LegacyBundleEvidence.applies(hostXcode: "Xcode 16.2 (16C5032a)"))
        XCTAssertFalse(LegacyBundleEvidence.applies(hostXcode: "Xcode 26.1 (17B55)"))
        XCTAssertFalse(LegacyBundleEvidence.applies(hostXcode: nil), "unknown: the current commands, as before")
        XCTAssertFalse(LegacyBundleEvidence.applies(hostXcode: "something else"))
    }

    func testTheScriptQuotesTheBundleAndPrintsTheRootRecordLast() throws {
        let bundle = try ResultBundlePath(
            remoteRunFolder: "/Users/pipe/it's here", pipeline: "app", layer: "logic", startTime: Date(), runID: "r",
            attempt: 1)
        let script = LegacyBundleEvidence.script(bundle: bundle, coverage: true)
        let quoted = "'" + bundle.path.replacingOccurrences(of: "'", with: "'\\''") + "'"
        XCTAssertTrue(script.hasSuffix("xcrun xcresulttool get --format json --path \(quoted)"), script)
        XCTAssertTrue(script.contains("xcrun xccov view --report --json \(quoted)"), script)
        XCTAssertFalse(script.contains("--legacy"), "Xcode 15's tool refuses the flag")
        XCTAssertFalse(script.contains("test-results"))
        XCTAssertFalse(LegacyBundleEvidence.script(bundle: bundle, coverage: false).contains("xccov"))
    }

    func testExportedNamesKeepOnlyAPlainShortExtension() {
        func name(_ filename: String?, _ type: String?) -> String {
            LegacyBundleEvidence.fileExtension(
                .init(filename: filename, name: nil, payloadID: "0~x", uniformTypeIdentifier: type, payloadSize: nil))
        }
        XCTAssertEqual(name("Screen_1_6797ED56.PNG", "public.png"), "png")
        XCTAssertEqual(name("Screen_1_6797ED56", "public.jpeg"), "jpg", "no extension: from the type")
        XCTAssertEqual(name("x.png/../../evil", "public.png"), "png", "a path in the name is never used")
        XCTAssertEqual(name("x.$(reboot)", nil), "bin")
        XCTAssertEqual(name(nil, "chute.styleSheet"), "bin")
    }

    func testTheRootRecordIsTheSummaryAndAnotherObjectIsRefused() throws {
        let root = Data(
            (#"{"_type":{"_name":"ActionsInvocationRecord"},"metrics":{"_type":{"_name":"ResultMetrics"},"#
                + #""testsCount":{"_type":{"_name":"Int"},"_value":"3"},"#
                + #""testsFailedCount":{"_type":{"_name":"Int"},"_value":"1"}}}"#).utf8)
        let record = try LegacyBundleEvidence.root(root)
        XCTAssertEqual(XcresultSummary(legacy: record).failedTests, 1)
        XCTAssertEqual(XcresultSummary(legacy: record).totalTestCount, 3)
        let other = Data(#"{"_type":{"_name":"ActionTestPlanRunSummaries"},"summaries":{"_values":[]}}"#.utf8)
        XCTAssertThrowsError(try LegacyBundleEvidence.root(other))
        XCTAssertThrowsError(try LegacyBundleEvidence.root(Data("not json".utf8)))
    }
}

import Foundation
import PipeTestSupport
import XCTest

/// A host with several Xcodes: the pipeline's `xcode` label picks one, and every command Pipe runs there gets its
/// `DEVELOPER_DIR`; the run records the Xcode it used.
final class XcodeSelectionTests: EmulatedHostTestCase {
    private let xcode154 = "/Applications/Xcode-15.4.app/Contents/Developer"

    func testTheXcodeLabelSelectsTheDeveloperDirForEveryCommand() throws {
        var config = try host.readConfig()
        config["otherXcodes"] = [xcode154: ["version": "15.4", "build": "15F31d"]]
        try host.writeConfig(config)
        let pipeline = """
            repository:
              workspace: examples/reader-app
            host:
              labels: { xcode: "15.4" }
            simulator:
              device: iPhone 15
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                only-testing: [ReaderTests/ReadingIDTests]
            """
        let project = try makeProject(pipeline: pipeline)
        try project.writeHostsFile(
            host.hostsFileEntry()
                + """
                    labels: { xcode: "16.2" }
                    xcodes: { "15.4": \(xcode154) }

                """)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let record = try project.lastRecord()
        XCTAssertEqual(record["xcode"] as? String, "Xcode 15.4 (15F31d) at \(xcode154)")
        let log = try String(
            contentsOf: try XCTUnwrap(project.runFolders().last).appendingPathComponent("logic/xcodebuild.log"),
            encoding: .utf8)
        XCTAssertTrue(log.contains("** TEST SUCCEEDED **"), "xcodebuild ran with that DEVELOPER_DIR:\n\(log)")
    }

    func testAnXcodeNoHostHasIsARequestErrorNamingWhatHostsHave() throws {
        let pipeline = """
            host:
              labels: { xcode: "14.0" }
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
            """
        let project = try makeProject(pipeline: pipeline)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.combined.contains("no host has the labels xcode=14.0"), result.combined)
    }
}

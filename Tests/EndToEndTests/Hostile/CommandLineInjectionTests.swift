import Foundation
import PipeTestSupport
import XCTest

/// Run ids, layer names and parameters typed on the command line are data: every string of the injection corpus
/// gets a clear refusal (or is matched as a name), runs nothing and writes nothing outside the project.
final class CommandLineInjectionTests: EmulatedHostTestCase {
    func testEveryCorpusStringAsARunIdOrLayerNameIsRefusedClearly() throws {
        let project = try makeProject()
        try? FileManager.default.removeItem(atPath: InjectionCorpus.witnessFile)
        let before = try FileManager.default.contentsOfDirectory(atPath: project.url.path).sorted()
        let values = InjectionCorpus.strings.filter { !$0.isEmpty && $0.utf8.count < 4_096 }
        for value in values {
            for arguments in [
                ["runs", "show", value], ["runs", "logs", value], ["rerun", value],
                ["signoff", value, value, "--pass"], ["runs", "cancel", value],
            ] {
                let result = try project.pipe(arguments)
                XCTAssertTrue(
                    [1, 2].contains(result.exitCode),
                    "pipe \(arguments.prefix(2)) \(value.prefix(30)):\n\(result.combined)")
                XCTAssertTrue(
                    result.stderr.contains("error:"), "no clear refusal for \(value.prefix(30)):\n\(result.combined)")
                XCTAssertFalse(
                    result.combined.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" },
                    "a control character reached the terminal for \(value.prefix(30))")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile), "a command ran")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: project.url.path).sorted(), before)
    }
}

import Foundation
import FoundationXML
import PipeTestSupport
import XCTest

/// A hostile Mac: a login of its own (what it plants cannot reach the other hosts' account) and a `tar` that
/// answers a pull-back with an archive no honest tar makes. Whatever it sends, nothing lands outside the run's
/// folder, the layer ends `infrastructure` naming the host and the member, and the retry goes to another host.
final class HostileHostTests: EmulatedHostTestCase {
    private var evil: HostileMacHost!
    private var hostile: EmulatedMacHost { evil.host }
    /// Where an escaping member would land if it could.
    private let target = URL(fileURLWithPath: "/tmp/pipe-hostile-target")

    private let pipeline = EmulatedHostTestCase.oneLogicLayerPipeline

    override func setUpWithError() throws {
        try super.setUpWithError()
        evil = try HostileMacHost(mode: Self.hostMode)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    }

    override func tearDown() {
        evil?.stop()
        try? FileManager.default.removeItem(at: target)
        super.tearDown()
    }

    /// A project whose hosts file lists the hostile host first, then the honest one.
    private func makeHostileProject() throws -> PipeProject {
        let project = try makeProject(pipeline: pipeline)
        try project.writeHostsFile(hostile.hostsFileEntry() + host.hostsFileEntry())
        return project
    }

    private func plant(_ payload: String) throws { try evil.plant(payload) }

    func testADeviceNodeInAPulledBackBundleIsRefusedAndTheRetryGoesToAnotherHost() throws {
        let project = try makeHostileProject()
        try plant("device")
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertTrue(result.combined.contains("host mac-evil"), result.combined)
        XCTAssertTrue(result.combined.contains("which was refused: it holds a device node `"), result.combined)
        XCTAssertTrue(result.combined.contains(".xcresult/mem`; nothing of that item was kept"), result.combined)
        XCTAssertTrue(result.combined.contains("moved the run from mac-evil to mac-1"), result.combined)
        XCTAssertEqual(result.exitCode, 0, "the retry on the honest host passes:\n\(result.combined)")
        let record = try runRecord(project)
        let attempts = try XCTUnwrap((record["layers"] as? [[String: Any]])?.first?["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["infrastructure", "passed"])
        XCTAssertEqual(attempts.compactMap { ($0["facts"] as? [String: String])?["host"] }, ["mac-evil", "mac-1"])
        try assertNothingKeptOfTheRefusedBundle(project)
    }

    func testALinkThatLeadsOutCannotCarryAFileOutOfTheRunFolder() throws {
        let project = try makeProject(pipeline: pipeline)
        try project.writeHostsFile(hostile.hostsFileEntry())
        try plant("escape")
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 3, result.combined)
        XCTAssertTrue(result.combined.contains("host mac-evil"), result.combined)
        XCTAssertTrue(result.combined.contains("would be written through `"), result.combined)
        XCTAssertTrue(
            result.combined.contains("a retry never goes back to mac-evil after it sent what Pipe refuses"),
            result.combined)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [], "a file escaped")
        try assertNothingKeptOfTheRefusedBundle(project)
    }

    func testSetuidBitsAndOwnersFromTheHostAreDropped() throws {
        let project = try makeProject(pipeline: pipeline)
        try project.writeHostsFile(hostile.hostsFileEntry())
        try plant("setuid")
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let runFolder = try XCTUnwrap(project.runFolders().last)
        let bundles = try FileManager.default.contentsOfDirectory(
            atPath: runFolder.appendingPathComponent("logic").path
        )
        .filter { $0.hasSuffix(".xcresult") }
        let tool = runFolder.appendingPathComponent("logic/\(try XCTUnwrap(bundles.first))/tool")
        var info = stat()
        XCTAssertEqual(lstat(tool.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7000, 0, "setuid, setgid or sticky kept")
        XCTAssertEqual(info.st_uid, getuid(), "the owner came from the archive")
    }

    func testASimulatorListingThatNeverEndsIsStoppedAtItsLimit() throws {
        let project = try makeProject(pipeline: pipeline)
        try project.writeHostsFile(hostile.hostsFileEntry())
        try plant("endless-simctl")
        let started = Date()
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 3, result.combined)
        XCTAssertTrue(result.combined.contains("host mac-evil"), result.combined)
        XCTAssertTrue(
            result.combined.contains("printed more than 67108864 bytes on stdout for a command Pipe ran for itself"),
            result.combined)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "the endless listing was not stopped")
        let leftover = try hostile.inspect("ps -A -o command")
        XCTAssertFalse(leftover.stdout.contains("pipe-endless"), "the endless command still runs:\n\(leftover.stdout)")
    }

    /// A branch's tests can write the account's `~/.zshenv`, which zsh reads before every command Pipe sends: what
    /// it prints is never taken for a verdict, and the run says the host is at fault.
    func testAPlantedZshenvThatPrintsIsTheHostsFaultNeverTheApps() throws {
        let project = try makeProject(pipeline: pipeline)
        try project.writeHostsFile(hostile.hostsFileEntry())
        let home = try hostile.inspect("pwd").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let zshenv = URL(fileURLWithPath: home).appendingPathComponent(".zshenv")
        try "echo '** TEST SUCCEEDED **'\necho 'Test Suite All tests passed' >&2\n".write(
            to: zshenv, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: zshenv) }
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 3, result.combined)
        XCTAssertTrue(
            result.combined.contains("host mac-evil: the host's login shell printed text of its own"), result.combined)
    }

    /// A test that prints far more than its layer's `log-limit`: the stored log and the stored events stop there,
    /// the layer goes on, and its verdict is read from the whole output.
    func testALogPastItsLimitIsCutWhileTheLayerGoesOn() throws {
        let project = try makeProject(
            pipeline: pipeline.replacingOccurrences(
                of: "    scheme: Reader\n", with: "    scheme: Reader\n    log-limit: 100KB\n"))
        try project.writeHostsFile(hostile.hostsFileEntry())
        try plant("noisy-log")
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(
            result.combined.contains("its log passed its limit of 100000 bytes (`log-limit`)"), result.combined)
        let runFolder = try XCTUnwrap(project.runFolders().last)
        let log = try Data(contentsOf: runFolder.appendingPathComponent("logic/xcodebuild.log"))
        XCTAssertLessThan(log.count, 100_500, "the stored log was not cut")
        XCTAssertGreaterThanOrEqual(log.count, 100_000)
        XCTAssertNotNil(log.range(of: Data("[pipe: this log was cut at its limit of 100000 bytes".utf8)))
        let logs = try project.pipe(["runs", "logs", "last"])
        XCTAssertLessThan(logs.stdout.utf8.count, 101_000, "the run store kept more than the limit")
        let record = try runRecord(project)
        let tests = try XCTUnwrap((record["layers"] as? [[String: Any]])?.first?["tests"] as? [[String: Any]])
        XCTAssertFalse(tests.isEmpty, "the verdict did not read the tests after the cut")
    }

    /// Every string of the injection corpus in simulator names and UDIDs and in xcresulttool's test failures: the
    /// run chooses a real simulator, runs nothing it was not asked to, and shows and writes the strings as text.
    func testTheInjectionCorpusInTheHostsJSONIsData() throws {
        let corpus = InjectionCorpus.strings.filter { $0.utf8.count < 1_000 }
        try JSONSerialization.data(withJSONObject: corpus).write(to: evil.corpusFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: evil.corpusFile.path)
        try? FileManager.default.removeItem(atPath: InjectionCorpus.witnessFile)
        let project = try makeProject(pipeline: pipeline)
        try project.writeHostsFile(hostile.hostsFileEntry())
        try plant("corpus")
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertTrue([0, 1].contains(result.exitCode), result.combined)
        let summary = try String(
            contentsOf: try XCTUnwrap(project.runFolders().last).appendingPathComponent("logic/xcresult-summary.json"),
            encoding: .utf8)
        XCTAssertTrue(summary.contains("pipe-injected"), "the corpus never reached the summary")
        XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile), "a command ran")
        XCTAssertFalse(result.combined.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, result.combined)
        let record = try runRecord(project)
        let chosen = ((record["simulator"] as? [String: Any])?["simulator"] as? [String: Any])?["udid"] as? String
        let genuine = (try hostile.readConfig()["simulators"] as? [[String: Any]] ?? []).compactMap {
            $0["name"] as? String == "iPhone 15" ? $0["udid"] as? String : nil
        }
        XCTAssertTrue(genuine.contains(chosen ?? ""), "a hostile simulator was chosen: \(chosen ?? "none")")
        let runFolder = try XCTUnwrap(project.runFolders().last)
        let junit = try Data(contentsOf: runFolder.appendingPathComponent("junit.xml"))
        let parser = XMLParser(data: junit)
        XCTAssertTrue(parser.parse(), "junit.xml is not well-formed: \(String(describing: parser.parserError))")
    }

    private func runRecord(_ project: PipeProject) throws -> [String: Any] {
        let runFolder = try XCTUnwrap(project.runFolders().last)
        let data = try Data(contentsOf: runFolder.appendingPathComponent("summary.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The refused attempt's folder holds its log and exit code, but no bundle and no staging folder.
    private func assertNothingKeptOfTheRefusedBundle(
        _ project: PipeProject, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let runFolder = try XCTUnwrap(project.runFolders().last, file: file, line: line)
        let names = try FileManager.default.contentsOfDirectory(atPath: runFolder.appendingPathComponent("logic").path)
        XCTAssertFalse(names.contains { $0.hasSuffix(".xcresult") }, "\(names)", file: file, line: line)
        XCTAssertFalse(names.contains { $0.hasPrefix(".pipe-partial") }, "\(names)", file: file, line: line)
        XCTAssertTrue(names.contains("xcodebuild.log"), "\(names)", file: file, line: line)
    }
}

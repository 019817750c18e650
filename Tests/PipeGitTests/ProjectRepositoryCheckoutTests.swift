import Foundation
import PipeGit
import XCTest

/// The engine's default: Pipe's own repository at HEAD. Also measures a cold clone against a warm fetch.
final class ProjectRepositoryCheckoutTests: XCTestCase {
    func testCheckoutOfThisRepositoryAtHEADColdThenWarm() throws {
        let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: top.appendingPathComponent(".git").path) else {
            throw XCTSkip("\(top.path) is not a git checkout")
        }
        let expected = try GitFixture.run(["rev-parse", "HEAD"], in: top)
        let committedFiles = try GitFixture.run(["ls-tree", "-r", "--name-only", "HEAD"], in: top)
            .split(separator: "\n").map(String.init)

        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("pipe-git-self-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let mirrors = scratch.appendingPathComponent("mirrors")

        let clock = ContinuousClock()
        var started = clock.now
        let cold = try GitCheckout.checkout(
            repository: top.path, ref: "HEAD", into: scratch.appendingPathComponent("cold"), mirrorsFolder: mirrors)
        let coldTime = clock.now - started
        started = clock.now
        let warm = try GitCheckout.checkout(
            repository: top.path, ref: "HEAD", into: scratch.appendingPathComponent("warm"), mirrorsFolder: mirrors)
        let warmTime = clock.now - started

        XCTAssertEqual(cold.commitSHA, expected)
        XCTAssertEqual(warm.commitSHA, expected)
        XCTAssertTrue(cold.mirrorUpdate.cloned)
        XCTAssertFalse(warm.mirrorUpdate.cloned)
        let files = try relativeTree(of: warm.workTree).filter { !$0.hasSuffix("/") }
        XCTAssertEqual(files, committedFiles.sorted())
        print(
            "checkout of \(top.lastPathComponent) @ \(expected.prefix(12)) (\(files.count) files): "
                + "cold \(cold.mirrorUpdate.seconds.ms) clone + \(cold.checkoutSeconds.ms) files = \(coldTime.ms); "
                + "warm \(warm.mirrorUpdate.seconds.ms) fetch + \(warm.checkoutSeconds.ms) files = \(warmTime.ms)")
    }
}

extension Double {
    fileprivate var ms: String { String(format: "%.1f ms", self * 1000) }
}

extension Duration {
    fileprivate var ms: String {
        let (seconds, attoseconds) = components
        return (Double(seconds) + Double(attoseconds) / 1e18).ms
    }
}

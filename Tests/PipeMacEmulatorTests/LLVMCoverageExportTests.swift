import Foundation
import XCTest

@testable import PipeMacEmulator

/// llvm-cov's export of a real run (Fixtures/llvm-cov/README.md) read as xccov's targets.
final class LLVMCoverageExportTests: XCTestCase {
    private func export() throws -> Data {
        try Data(contentsOf: EmulatorHarness.fixtures.appendingPathComponent("llvm-cov/tiny-export.json"))
    }

    func testTheWorkspacesSourcesAndTestsBecomeTargetsAndGeneratedFilesAreLeftOut() throws {
        let targets = try LLVMCoverageExport.targets(try export(), workspaceRoot: "/tmp/ev-tiny")
        XCTAssertEqual(targets.map(\.name), ["Tiny.framework", "TinyTests.xctest"])
        XCTAssertEqual(
            targets[0].files,
            [
                TestEvidence.CoverageFile(
                    path: "/tmp/ev-tiny/Sources/Tiny/Doubler.swift", coveredLines: 3, executableLines: 3)
            ])
        XCTAssertEqual(targets[1].files.map(\.executableLines), [10])
        XCTAssertFalse(targets.flatMap(\.files).contains { $0.path.contains(".scratch") }, "generated files")
    }

    func testAnotherWorkspaceHasNoneOfItAndNonsenseIsRefused() throws {
        XCTAssertEqual(try LLVMCoverageExport.targets(try export(), workspaceRoot: "/elsewhere"), [])
        XCTAssertThrowsError(try LLVMCoverageExport.targets(Data("{}".utf8), workspaceRoot: "/tmp/ev-tiny"))
    }
}

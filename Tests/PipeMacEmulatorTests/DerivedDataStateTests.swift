import Foundation
import XCTest

@testable import PipeMacEmulator

/// The emulated xcodebuild builds into the DerivedData it is given: cold in a fresh folder, incremental when the
/// same folder comes back for the same sources, from nothing when the folder (or the sources) moved.
final class DerivedDataStateTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-derived-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A file standing for what an earlier build left in the scratch folder.
    private func leaveProducts(in derivedData: URL) throws -> URL {
        let product = DerivedDataState.scratch(in: derivedData).appendingPathComponent("debug/Tiny.o")
        try FileManager.default.createDirectory(
            at: product.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("object".utf8).write(to: product)
        return product
    }

    func testAFreshFolderIsColdTheSameFolderIncrementalAMovedOneRebuilt() throws {
        let sources = folder.appendingPathComponent("cache/tree")
        let derivedData = folder.appendingPathComponent("cache/builds/logic/DerivedData")
        XCTAssertEqual(try DerivedDataState.prepare(derivedData: derivedData, source: sources), .cold)
        let product = try leaveProducts(in: derivedData)

        XCTAssertEqual(try DerivedDataState.prepare(derivedData: derivedData, source: sources), .incremental)
        XCTAssertTrue(FileManager.default.fileExists(atPath: product.path), "an incremental build keeps its products")

        // Copied to another path, as Pipe never does: the copy builds from nothing (the emulator's assumption).
        let copy = folder.appendingPathComponent("runs/r1/DerivedData")
        try FileManager.default.createDirectory(
            at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: derivedData, to: copy)
        XCTAssertEqual(try DerivedDataState.prepare(derivedData: copy, source: sources), .moved)
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: DerivedDataState.scratch(in: copy).appendingPathComponent("debug/Tiny.o").path),
            "what the copy held is not reused")
        XCTAssertEqual(try DerivedDataState.prepare(derivedData: copy, source: sources), .incremental)

        // The same folder for sources at another path rebuilds too.
        XCTAssertEqual(
            try DerivedDataState.prepare(derivedData: derivedData, source: folder.appendingPathComponent("other")),
            .moved)
        XCTAssertFalse(FileManager.default.fileExists(atPath: product.path))
    }

    func testCannedXcodebuildRecordsTheDerivedDataItWasGiven() throws {
        let host = try EmulatorHarness()
        try host.changeConfig { config in config["sharedSchemes"] = ["Reader"] }
        let workspace = try host.copyFixture("canned-reader", as: "reader-app")
        let derivedData = host.folder.appendingPathComponent("stable/DerivedData")
        let outcome = host.run(
            "xcodebuild",
            [
                "build-for-testing", "-scheme", "Reader", "-destination",
                "platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)", "-derivedDataPath", derivedData.path,
                "-clonedSourcePackagesDirPath", host.folder.appendingPathComponent("stable/SourcePackages").path,
            ], in: workspace)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(
            try String(
                contentsOf: derivedData.appendingPathComponent(DerivedDataState.recordName), encoding: .utf8),
            "derivedData=\(derivedData.standardizedFileURL.path)\nsource=\(workspace.standardizedFileURL.path)\n")
        XCTAssertEqual(try DerivedDataState.prepare(derivedData: derivedData, source: workspace), .incremental)
    }
}

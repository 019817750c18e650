import Foundation
import PipeApple
import XCTest

/// Which build logs say the DerivedData is damaged (the next build in the cache then starts from nothing), and
/// which do not: a failed compile or a cancelled build leaves a DerivedData Xcode copes with.
///
/// The damaged-DerivedData lines are worded as Xcode and clang print them in reports on Apple's developer forums;
/// no Mac was at hand to capture them, so they are written here rather than copied from a fixture.
final class DerivedDataCorruptionTests: XCTestCase {
    func testADamagedBuildDatabaseOrModuleIsEvidence() {
        for line in [
            "error: accessing build database \"/Users/ci/pipe-work/cache/trusted-0123456789abcdef-1/builds/logic-0a1b2c3d4e5f/"
                + "DerivedData/Build/Intermediates.noindex/XCBuildData/build.db\": database disk image is malformed",
            "fatal error: malformed or corrupted AST file: 'could not find file '/Users/ci/DerivedData/ModuleCache.noindex/"
                + "Foundation-1X2Y3Z.pcm''",
            "error: unable to open build database: file is not a database",
        ] {
            let log =
                "Build settings from command line:\n    ONLY_ACTIVE_ARCH = YES\n\n" + line + "\n\n** TEST FAILED **\n"
            XCTAssertEqual(DerivedDataCorruption.evidence(in: Substring(log)), String(line.prefix(200)), line)
        }
    }

    func testAnOrdinaryFailureIsNot() {
        let log = """
            /Users/ci/tree/Sources/Reader/ReadingID.swift:7:9: error: cannot find 'maxLength' in scope
            error: unable to attach DB: error: accessing build database "…/build.db": database is locked Possibly \
            there are two concurrent builds running in the same filesystem location.
            ** BUILD INTERRUPTED **
            """
        XCTAssertNil(DerivedDataCorruption.evidence(in: Substring(log)))
    }

    func testTheLogFilesEndIsRead() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-corrupt-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: url) }
        let filler = String(repeating: "CompileSwift normal arm64 /Users/ci/tree/Sources/A.swift\n", count: 100_000)
        try Data((filler + "error: database disk image is malformed\n").utf8).write(to: url)
        XCTAssertEqual(DerivedDataCorruption.evidence(inLogAt: url), "error: database disk image is malformed")
        XCTAssertNil(DerivedDataCorruption.evidence(inLogAt: url.appendingPathExtension("missing")))
    }
}

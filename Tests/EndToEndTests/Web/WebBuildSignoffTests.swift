import Foundation
import PipeBasics
import PipeCore
import PipeStore
import PipeTestSupport
import XCTest

/// The web page's sign-off goes through the same build check as `pipe signoff`: once a layer the checklist needs
/// has recorded a release build, a form giving another `app_build` is refused with both numbers, and one that
/// gives the build's number is recorded against its SHA-256.
final class WebBuildSignoffTests: WebPageTestCase {
    func testAFormGivingAnotherBuildNumberIsRefused() throws {
        try start()
        let runID = try lastRunID()
        let commit = try XCTUnwrap(try project.lastRecord()["commit"] as? String)
        let digest = String(repeating: "e", count: 64)
        // Shortcuts needs logic: a release build recorded by logic stands in for an archive layer's.
        let store = try SQLiteRunStore(location: project.url.appendingPathComponent(".pipe/pipe.db"))
        try store.saveReleaseBuild(
            ReleaseBuild(
                runID: runID, layer: "logic", commit: commit,
                files: [ReleaseFile(kind: .ipa, path: "artifacts/\(runID)/logic/Reader.ipa", sha256: digest, size: 9)],
                app: ReleaseApp(bundleID: "com.example.reader", shortVersion: "1.0", buildVersion: "42"),
                signing: nil, toolchain: ReleaseToolchain(xcodeVersion: "16.2", xcodeBuild: nil, sdk: nil),
                recordedAt: Date()))

        XCTAssertEqual(try signIn("alice").status, 303)
        let token = csrf(try request("runs/\(runID)/layers/shortcuts").body)
        let action = "runs/\(runID)/layers/shortcuts/signoff"
        let wrong = try request(
            action,
            form: [("csrf", token), ("result", "pass"), ("field.os_version", "17.5"), ("field.app_build", "41")])
        XCTAssertEqual(wrong.status, 422, wrong.body)
        XCTAssertTrue(wrong.body.contains("app_build 41 is not the build this checklist checks"), wrong.body)
        XCTAssertTrue(wrong.body.contains("built CFBundleVersion 42 (SHA-256 \(digest))"), wrong.body)

        let signed = try request(
            action,
            form: [("csrf", token), ("result", "pass"), ("field.os_version", "17.5"), ("field.app_build", "42")])
        XCTAssertEqual(signed.status, 303, signed.body)
        XCTAssertEqual(try store.signoffs(runID: runID).last?.buildSHA256, digest)
    }
}

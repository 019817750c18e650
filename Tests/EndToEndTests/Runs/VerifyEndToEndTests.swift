import Foundation
import PipeBasics
import PipeCore
import PipeStore
import PipeTestSupport
import XCTest

/// `pipe verify` and build-bound sign-offs from the built `pipe`, over a real run on an emulated Mac: a merge
/// layer, an `archive` layer and a checklist that needs it. The release build is recorded into the run's store
/// the way the engine records an archive layer's (`ReleaseVerificationFile.record`), over an .ipa the test writes.
final class VerifyEndToEndTests: EmulatedHostTestCase {
    private let pipeline = """
        repository:
          workspace: examples/reader-app
        layers:
          unit:
            plugin: shell
            command: "true"
          archive:
            plugin: shell
            gate: release
            needs: [unit]
            command: "true"
          release-checklist:
            plugin: checklist
            gate: release
            needs: [archive]
            items: [Install the build and open it once.]
            fields: [os_version, device, app_build]
        """

    private let info = Array(
        """
        <plist><dict><key>CFBundleIdentifier</key><string>com.example.reader</string>
        <key>CFBundleShortVersionString</key><string>1.4.2</string><key>CFBundleVersion</key><string>42</string>
        </dict></plist>
        """.utf8)

    func testVerifySaysYesOnlyAfterASignoffAgainstThisBuild() throws {
        let project = try makeProject(pipeline: pipeline)
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(run.exitCode, 0, run.combined)
        let folder = try XCTUnwrap(project.runFolders().last)
        let runID = folder.lastPathComponent
        let commit = try XCTUnwrap(try project.lastRecord()["commit"] as? String)

        let ipa = folder.appendingPathComponent("archive/Reader.ipa")
        try FileManager.default.createDirectory(
            at: ipa.deletingLastPathComponent(), withIntermediateDirectories: true)
        try ZipWriter.write(
            [.file("Payload/Reader.app/Info.plist", info), .file("Payload/Reader.app/Reader", [0xCF])], to: ipa)
        let digest = try SHA256Digest.hex(ofFile: ipa)
        let store = try SQLiteRunStore(location: project.url.appendingPathComponent(".pipe/pipe.db"))
        let build = ReleaseBuild(
            runID: runID, layer: "archive", commit: commit,
            files: [
                ReleaseFile(
                    kind: .ipa, path: "artifacts/\(runID)/archive/Reader.ipa", sha256: digest,
                    size: Int64(try Data(contentsOf: ipa).count))
            ],
            app: ReleaseApp(bundleID: "com.example.reader", shortVersion: "1.4.2", buildVersion: "42"),
            signing: nil, toolchain: ReleaseToolchain(xcodeVersion: "16.2", xcodeBuild: nil, sdk: "iphoneos18.2"),
            recordedAt: Date())
        let recorded = try XCTUnwrap(try ReleaseVerificationFile.record(build, store: store, runFolder: folder))
        XCTAssertEqual(recorded.exitCode, 4, "\(recorded.missing)")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("archive/verification.json").path))

        let pending = try project.pipe(["verify", "--ipa", ipa.path])
        XCTAssertEqual(pending.exitCode, 4, pending.combined)
        XCTAssertTrue(
            pending.stdout.contains("release layer release-checklist of run \(runID): awaiting sign-off"),
            pending.stdout)

        let wrong = try project.pipe([
            "signoff", runID, "release-checklist", "--result", "pass", "--field", "os_version=18.2", "--field",
            "device=iPhone 16", "--field", "app_build=41", "--by", "qa@pipe.test",
        ])
        XCTAssertEqual(wrong.exitCode, 2, wrong.combined)
        XCTAssertTrue(
            wrong.combined.contains(
                "app_build 41 is not the build this checklist checks: layer archive of run \(runID) built "
                    + "CFBundleVersion 42 (SHA-256 \(digest))"), wrong.combined)

        let signed = try project.pipe([
            "signoff", runID, "release-checklist", "--result", "pass", "--field", "os_version=18.2", "--field",
            "device=iPhone 16", "--by", "qa@pipe.test",
        ])
        XCTAssertEqual(signed.exitCode, 0, signed.combined)

        let yes = try project.pipe(["verify", "--ipa", ipa.path])
        XCTAssertEqual(yes.exitCode, 0, yes.combined)
        XCTAssertTrue(
            yes.stdout.hasPrefix("✓ yes: the .ipa \(ipa.path) (SHA-256 \(digest)) may be released"), yes.stdout)
        XCTAssertTrue(yes.stdout.contains("OS 18.2, iPhone 16, build 42, SHA-256 \(digest) · this build"), yes.stdout)
        let json =
            try JSONSerialization.jsonObject(
                with: try Data(contentsOf: folder.appendingPathComponent("archive/verification.json")))
            as? [String: Any]
        XCTAssertEqual(json?["releasable"] as? Bool, true, "verification.json is rewritten after the sign-off")
        XCTAssertEqual(try project.pipe(["verify", String(commit.prefix(12))]).exitCode, 0)

        try ZipWriter.write([.file("Payload/Reader.app/Info.plist", info)], to: ipa)
        let unknown = try project.pipe(["verify", "--ipa", ipa.path, "--json"])
        XCTAssertEqual(unknown.exitCode, 3, unknown.combined)
        XCTAssertTrue(unknown.stdout.contains("Pipe has no record of an .ipa with SHA-256"), unknown.stdout)
        let noCommit = try project.pipe(["verify", "0000000"])
        XCTAssertEqual(noCommit.exitCode, 2, noCommit.combined)
        XCTAssertTrue(
            noCommit.stderr.contains("no run in the store checked out a commit starting with 0000000"), noCommit.stderr)
    }
}

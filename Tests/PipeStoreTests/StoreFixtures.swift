import Foundation
import PipeBasics
import PipeCore

/// Run records and stores for the store's tests: real SQLite files in a fresh temp folder per test.
enum StoreFixtures {
    /// A fixed start for the runs of a test, so ids and ordering are predictable.
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18

    static func timestamp(_ date: Date) -> String { UTCTimestamp.iso8601(date) }

    /// A run id for a run starting `offset` seconds after `epoch`: distinct offsets give distinct ids.
    static func runID(_ offset: Int) -> String {
        RunID.generate(at: epoch.addingTimeInterval(Double(offset))).value
    }

    /// A run record as the engine creates it: `running`, layers declared, nothing run yet.
    static func newRun(
        _ runID: String, pipeline: String = "app-intents",
        layers: [(name: String, gate: Gate)] = [
            ("unit", .merge), ("ui", .merge),
        ], requestedBy: String = "alice", commit: String? = nil
    ) -> RunRecord {
        let started = RunID(runID)?.startTime ?? epoch
        return RunRecord(
            runID: runID, pipeline: pipeline, pipelineFile: "pipelines/\(pipeline).yml", status: .running,
            request: .init(
                pipeline: pipeline, ref: "HEAD", workspace: "examples/reader-app",
                parameters: ["configuration": "Debug"],
                requestedBy: requestedBy, reason: "tests", trigger: "cli"),
            commit: commit, startedAt: timestamp(started),
            layers: layers.map {
                .init(name: $0.name, plugin: $0.gate == .merge ? "xcodebuild-test" : "checklist", gate: $0.gate)
            })
    }

    /// A run that has ended, with one finished attempt per layer holding `tests`.
    static func finishedRun(
        _ runID: String, pipeline: String = "app-intents", status: RunStatus = .finished, commit: String = "c0ffee",
        tests: [TestCaseResult] = [], artifacts: [ArtifactRecord] = []
    ) -> RunRecord {
        var record = newRun(runID, pipeline: pipeline, layers: [("unit", .merge)], commit: commit)
        let started = RunID(runID)?.startTime ?? epoch
        let failed = tests.contains { $0.status == .failed }
        record.status = status
        record.finishedAt = timestamp(started.addingTimeInterval(60))
        record.durationSeconds = 60
        record.exitCode = failed ? 1 : 0
        record.layers[0].outcome = failed ? .testsFailed : .passed
        record.layers[0].attempts = [
            .init(
                attempt: 1, outcome: record.layers[0].outcome, startedAt: timestamp(started.addingTimeInterval(5)),
                finishedAt: timestamp(started.addingTimeInterval(55)), durationSeconds: 50, artifacts: artifacts)
        ]
        record.layers[0].tests = tests
        return record
    }

    static func owner() -> RunOwner { RunOwner.current() }

    /// The record as JSON with sorted keys: records are not `Equatable`, and this compares every field.
    static func json(_ record: RunRecord) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(record), as: UTF8.self)
    }
}

extension StoreFixtures {
    /// A release build as an archive layer records it; `ipa` is the `.ipa`'s SHA-256.
    static func releaseBuild(
        runID: String, layer: String = "archive", commit: String, ipa: String, build: String = "42",
        at offset: Double = 0
    ) -> ReleaseBuild {
        ReleaseBuild(
            runID: runID, layer: layer, commit: commit,
            files: [
                ReleaseFile(kind: .ipa, path: "artifacts/\(runID)/\(layer)/Reader.ipa", sha256: ipa, size: 1_234_567),
                ReleaseFile(
                    kind: .dsyms, path: "artifacts/\(runID)/\(layer)/Reader.app.dSYM.zip",
                    sha256: String(repeating: "d", count: 64), size: 88_000),
                ReleaseFile(
                    kind: .archiveLog, path: "artifacts/\(runID)/\(layer)/archive.log",
                    sha256: String(repeating: "1", count: 64), size: 4_096),
            ],
            app: ReleaseApp(bundleID: "com.example.reader", shortVersion: "1.4.2", buildVersion: build),
            signing: ReleaseSigning(
                identitySubject: "Apple Distribution: Example Ltd (ABCDE12345)",
                identitySHA1: "0123456789ABCDEF0123456789ABCDEF01234567",
                profiles: [
                    ProvisioningProfileFacts(
                        name: "Reader App Store", uuid: "6C2E1E0A-9E4B-4B8E-9A57-0D1D2A3B4C5D", team: "ABCDE12345",
                        expires: epoch.addingTimeInterval(86_400 * 300))
                ]),
            toolchain: ReleaseToolchain(xcodeVersion: "16.2", xcodeBuild: "16C5032a", sdk: "iphoneos18.2"),
            recordedAt: epoch.addingTimeInterval(offset))
    }
}

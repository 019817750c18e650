import PipeCore

/// Run records built in code for the writers and the schema: one with every field set, one in progress, one with
/// a layer of every kind of outcome.
enum SampleRecords {
    static let simulator = Simulator(
        udid: "90052AC6-D47D-4B2A-840D-6B5B081260C6", name: "iPhone 15",
        runtimeIdentifier: "com.apple.CoreSimulator.SimRuntime.iOS-17-5", runtimeName: "iOS 17.5", platform: "iOS",
        runtimeVersion: "17.5", state: "Shutdown", isAvailable: true, availabilityError: "none",
        deviceTypeIdentifier: "com.apple.CoreSimulator.SimDeviceType.iPhone-15")

    static let request = RunRecord.Request(
        pipeline: "app-intents", ref: "main", repository: "git@example.com:reader.git", workspace: "examples/reader-app",
        parameters: ["scheme": "Reader"], udid: simulator.udid, host: "mac-1", requestedBy: "alice",
        reason: "nightly", trigger: "cli")

    static func everyField() -> RunRecord {
        let attempt = RunRecord.AttemptRecord(
            attempt: 1, outcome: .testsFailed, evidence: ["exit 65", "** TEST FAILED **"], exit: "65",
            simulatorUDID: simulator.udid, startedAt: "2026-11-29T14:03:20.000Z", finishedAt: "2026-11-29T14:04:02.500Z",
            durationSeconds: 42.5, facts: ["command": "xcodebuild test -scheme Reader"],
            artifacts: [
                ArtifactRecord(
                    kind: .log, path: "artifacts/20261129-140312-7f3a/logic/xcodebuild.log", bytes: 12_345,
                    sha256: String(repeating: "ab", count: 32))
            ])
        let layer = RunRecord.LayerRecord(
            name: "logic", plugin: "xcodebuild-test", gate: .merge, needs: ["build"], outcome: .testsFailed,
            evidence: ["exit 65"], attempts: [attempt],
            tests: [
                TestCaseResult(
                    identifier: "ReadingIDTests/testEmpty()", status: .failed, durationSeconds: 0.46,
                    failureMessage: "XCTAssertEqual failed", failureLocation: "ReadingIDTests.swift:42")
            ])
        return RunRecord(
            runID: "20261129-140312-7f3a", pipeline: "app-intents", pipelineFile: "pipelines/app-intents.yml",
            status: .finished, request: request, commit: String(repeating: "3f98907c", count: 5), resolvedRef: "refs/heads/main",
            host: RunRecord.HostFacts(
                name: "mac-1", endpoint: "pipe-mac@127.0.0.1:2222", keyType: "ssh-ed25519",
                fingerprint: "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"),
            xcode: "Xcode 15.4 (15F31d)", simulator: SimulatorChoice(simulator: simulator, reason: "the newest iPhone"),
            remoteRunFolder: "/Users/pipe/work/runs/20261129-140312-7f3a", startedAt: "2026-11-29T14:03:12.000Z",
            finishedAt: "2026-11-29T14:04:03.000Z", durationSeconds: 51, exitCode: 1,
            problem: "none: the run ended normally", layers: [layer])
    }

    static func inProgress() -> RunRecord {
        RunRecord(
            runID: "20261129-140312-7f3a", pipeline: "app-intents", pipelineFile: "pipelines/app-intents.yml",
            status: .running, request: RunRecord.Request(
                pipeline: "app-intents", ref: "main", workspace: ".", requestedBy: "alice", trigger: "cli"),
            startedAt: "2026-11-29T14:03:12.000Z",
            layers: [
                RunRecord.LayerRecord(
                    name: "logic", plugin: "xcodebuild-test", gate: .merge,
                    attempts: [RunRecord.AttemptRecord(attempt: 1, startedAt: "2026-11-29T14:03:20.000Z")])
            ])
    }
}

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
        pipeline: "app-intents", ref: "main", repository: "git@example.com:reader.git",
        workspace: "examples/reader-app",
        parameters: ["scheme": "Reader"], udid: simulator.udid, host: "mac-1", requestedBy: "alice",
        reason: "nightly", trigger: "cli")

    /// A failing test's screenshot, with every attachment fact set.
    static var screenshot: ArtifactRecord {
        var artifact = ArtifactRecord(
            kind: .attachment,
            path: "artifacts/20261129-140312-7f3a/logic/R.xcresult.evidence/attachments/0F3C2A44.png", bytes: 73,
            sha256: String(repeating: "cd", count: 32))
        artifact.attachment = AttachmentFacts(
            testIdentifier: "ReadingIDTests/testEmpty()", name: "empty_0_0F3C2A44.png", claimedType: "image/png",
            detectedType: "image/png", associatedWithFailure: true)
        return artifact
    }

    static func everyField() -> RunRecord {
        let attempt = RunRecord.AttemptRecord(
            attempt: 1, outcome: .testsFailed, evidence: ["exit 65", "** TEST FAILED **"], exit: "65",
            simulatorUDID: simulator.udid, startedAt: "2026-11-29T14:03:20.000Z",
            finishedAt: "2026-11-29T14:04:02.500Z",
            durationSeconds: 42.5, facts: ["command": "xcodebuild test -scheme Reader"],
            artifacts: [
                ArtifactRecord(
                    kind: .log, path: "artifacts/20261129-140312-7f3a/logic/xcodebuild.log", bytes: 12_345,
                    sha256: String(repeating: "ab", count: 32)),
                screenshot,
            ])
        var layer = RunRecord.LayerRecord(
            name: "logic", plugin: "xcodebuild-test", gate: .merge, needs: ["build"], outcome: .testsFailed,
            evidence: ["exit 65"], attempts: [attempt],
            tests: [
                TestCaseResult(
                    identifier: "ReadingIDTests/testEmpty()", status: .failed, durationSeconds: 0.46,
                    failureMessage: "XCTAssertEqual failed", failureLocation: "ReadingIDTests.swift:42",
                    target: "ReaderTests")
            ])
        layer.build = BuildCacheUse(state: .cold, cache: "release-0123456789abcdef-1", reason: "clean: true")
        return RunRecord(
            runID: "20261129-140312-7f3a", pipeline: "app-intents", pipelineFile: "pipelines/app-intents.yml",
            status: .finished, request: request, commit: String(repeating: "3f98907c", count: 5),
            resolvedRef: "refs/heads/main",
            code: CodeTrust(level: .release, reason: "commit 0123456789ab is reachable from refs/heads/main"),
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
            status: .running,
            request: RunRecord.Request(
                pipeline: "app-intents", ref: "main", workspace: ".", requestedBy: "alice", trigger: "cli"),
            startedAt: "2026-11-29T14:03:12.000Z",
            layers: [
                RunRecord.LayerRecord(
                    name: "logic", plugin: "xcodebuild-test", gate: .merge,
                    attempts: [RunRecord.AttemptRecord(attempt: 1, startedAt: "2026-11-29T14:03:20.000Z")])
            ])
    }
}

extension SampleRecords {
    /// A finished run with a layer of every kind of outcome, hard text in messages (markup, quotes, control
    /// characters, a secret), and earlier runs that make one test flaky and another fail twice.
    static func everyOutcome() -> (record: RunRecord, earlierRuns: [String: [TestCaseResult]]) {
        func attempt(_ number: Int, _ outcome: LayerOutcome, exit: String?, seconds: Double, artifacts: [String] = [])
            -> RunRecord.AttemptRecord
        {
            RunRecord.AttemptRecord(
                attempt: number, outcome: outcome, exit: exit, simulatorUDID: simulator.udid,
                startedAt: "2026-11-29T14:0\(number):00.000Z", durationSeconds: seconds,
                artifacts: artifacts.map { ArtifactRecord(kind: .log, path: $0, bytes: 2_048_000) })
        }
        /// Coverage as the xcodebuild-test plugin records it, one target with hostile markup in its name.
        func covered(_ attempt: RunRecord.AttemptRecord) -> RunRecord.AttemptRecord {
            var attempt = attempt
            attempt.facts["coverage.Reader.app"] = "145/200"
            attempt.facts["coverage.Markup|<b>.framework"] = "1/3"
            return attempt
        }
        /// A screenshot tied to the failing test, and one whose name claims PNG but whose bytes are not.
        func withScreenshot(_ attempt: RunRecord.AttemptRecord) -> RunRecord.AttemptRecord {
            var attempt = attempt
            for (file, detected) in [("A1B2.png", "image/png"), ("C3D4.png", nil)] {
                var artifact = ArtifactRecord(
                    kind: .attachment, path: "artifacts/r/ui/R.xcresult.evidence/attachments/\(file)", bytes: 73,
                    sha256: String(repeating: "ab", count: 32))
                artifact.attachment = AttachmentFacts(
                    testIdentifier: "Outer/Inner/testRender()", name: "render_0_\(file)", claimedType: "image/png",
                    detectedType: detected, associatedWithFailure: true)
                attempt.artifacts.append(artifact)
            }
            return attempt
        }
        let hardMessage =
            "XCTAssertEqual failed: (\"<a & b>\") is not equal to (\"`c` | d\")\nsecond line\u{07} token s3cr3t"
        let layers = [
            RunRecord.LayerRecord(
                name: "logic", plugin: "xcodebuild-test", gate: .merge, outcome: .passed,
                evidence: ["exit 0", "** TEST SUCCEEDED ** [3.210 sec]"],
                attempts: [
                    covered(
                        attempt(1, .passed, exit: "0", seconds: 3.5, artifacts: ["artifacts/r/logic/xcodebuild.log"]))
                ],
                tests: [
                    TestCaseResult(identifier: "ReadingIDTests/testTrims()", status: .passed, durationSeconds: 0.001),
                    TestCaseResult(
                        identifier: "ReadingIDTests/testUnicode()", status: .skipped, failureMessage: "needs iOS 18"),
                    TestCaseResult(
                        identifier: "KnownIssues/testOld()", status: .expectedFailure, durationSeconds: 0.002),
                    TestCaseResult(identifier: "globalCheck()", status: .passed),
                ]),
            RunRecord.LayerRecord(
                name: "intents", plugin: "xcodebuild-test", gate: .merge, outcome: .flaky,
                evidence: ["IntentTests/testPerform() failed on attempt 1 and passed on attempt 2"],
                attempts: [
                    attempt(1, .testsFailed, exit: "65", seconds: 4), attempt(2, .passed, exit: "0", seconds: 3),
                ],
                tests: [TestCaseResult(identifier: "IntentTests/testPerform()", status: .passed, durationSeconds: 0.5)]),
            RunRecord.LayerRecord(
                name: "ui", plugin: "xcodebuild-test", gate: .merge, outcome: .testsFailed,
                evidence: ["exit 65", "** TEST FAILED **"],
                attempts: [withScreenshot(attempt(1, .testsFailed, exit: "65", seconds: 9))],
                tests: [
                    TestCaseResult(
                        identifier: "Outer/Inner/testRender()", status: .failed, durationSeconds: 1.25,
                        failureMessage: hardMessage, failureLocation: "RenderTests.swift:88")
                ]),
            RunRecord.LayerRecord(
                name: "build", plugin: "xcodebuild-test", gate: .merge, outcome: .buildFailed,
                evidence: ["Testing cancelled because the build failed.", "Model.swift:3:9: error: cannot find 'x'"],
                attempts: [attempt(1, .buildFailed, exit: "65", seconds: 2)]),
            RunRecord.LayerRecord(
                name: "device", plugin: "xcodebuild-test", gate: .merge, outcome: .hostConfig,
                evidence: ["the scheme is missing or not shared (Manage Schemes > Shared)"],
                attempts: [attempt(1, .hostConfig, exit: "65", seconds: 1)]),
            RunRecord.LayerRecord(
                name: "network", plugin: "xcodebuild-test", gate: .merge, outcome: .infrastructure,
                evidence: ["the connection was lost before xcodebuild ended: s3cr3t in a banner"],
                attempts: [attempt(1, .infrastructure, exit: "lost", seconds: 30)]),
            RunRecord.LayerRecord(
                name: "smoke", plugin: "xcodebuild-test", gate: .merge, needs: ["build"], outcome: .skipped,
                evidence: ["a layer it needs did not pass: build"]),
            RunRecord.LayerRecord(
                name: "haptics", plugin: "checklist", gate: .release, outcome: .awaitingSignoff,
                evidence: ["the checklist has 3 items"]),
            RunRecord.LayerRecord(
                name: "release-notes", plugin: "checklist", gate: .release, outcome: .signedOff,
                evidence: ["signed off by bob"]),
            RunRecord.LayerRecord(
                name: "stopped", plugin: "xcodebuild-test", gate: .merge, outcome: .cancelled,
                evidence: ["cancelled by the user"]),
        ]
        var record = everyField()
        record.layers = layers
        record.problem = nil
        return (
            record,
            [
                "intents": [
                    TestCaseResult(
                        identifier: "IntentTests/testPerform()", status: .failed, failureMessage: "timed out waiting",
                        failureLocation: "IntentTests.swift:12")
                ],
                "ui": [
                    TestCaseResult(
                        identifier: "Outer/Inner/testRender()", status: .failed, failureMessage: "first run failed",
                        failureLocation: "RenderTests.swift:88"),
                    TestCaseResult(identifier: "Unrelated/testOther()", status: .passed),
                ],
            ]
        )
    }
}

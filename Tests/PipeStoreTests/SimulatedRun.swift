import Foundation
import PipeBasics
import PipeCore
import PipeStore

/// Writes one whole run the way the engine will once it records into the store: every state change and every
/// event that is shown is its own write, as it happens (2 layers of 10 tests, each test streamed).
enum SimulatedRun {
    static let layers = ["unit", "ui"]
    static let testsPerLayer = 10
    /// The writes (transactions) `perform` makes: create, 2 updates, 3 events; per layer an attempt start and
    /// end, a layer end, 2 events and 2 writes per test; the end and its event.
    static let writesPerRun = 1 + 2 + 3 + layers.count * (3 + 2 + 2 * testsPerLayer) + 2
    static let eventsPerRun = 3 + layers.count * (2 + testsPerLayer) + 1

    /// Performs the run; `failing` makes the first test of each layer fail (for flaky-history checks).
    static func perform(
        _ store: RunStore, runID: String, pipeline: String = "app-intents", commit: String = "c0ffee",
        failing: Bool = false
    ) throws {
        let start = RunID(runID)?.startTime ?? Date()
        func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }
        func stamp(_ seconds: Double) -> String { UTCTimestamp.iso8601(at(seconds)) }
        let record = RunRecord(
            runID: runID, pipeline: pipeline, pipelineFile: "pipelines/\(pipeline).yml", status: .running,
            request: .init(
                pipeline: pipeline, ref: "HEAD", workspace: "examples/reader-app", requestedBy: "bench",
                trigger: "cli"),
            startedAt: stamp(0), layers: layers.map { .init(name: $0, plugin: "xcodebuild-test", gate: .merge) })
        try store.createRun(record, owner: RunOwner.current())
        try store.appendEvent(
            .init(type: "run-started", payload: #"{"pipeline":"\#(pipeline)"}"#, at: at(0)), runID: runID)
        try store.updateRun(runID, RunUpdate(commit: commit, resolvedRef: "refs/heads/main"))
        try store.appendEvent(.init(type: "checked-out", payload: #"{"commit":"\#(commit)"}"#, at: at(1)), runID: runID)
        try store.updateRun(
            runID,
            RunUpdate(
                host: .init(
                    name: "mac-1", endpoint: "ci@127.0.0.1:2222", keyType: "ssh-ed25519", fingerprint: "SHA256:x"),
                xcode: "Xcode 16.2", remoteRunFolder: "pipe-work/runs/\(runID)"))
        try store.appendEvent(.init(type: "host-connected", payload: #"{"host":"mac-1"}"#, at: at(2)), runID: runID)

        var clock = 3.0
        for layer in layers {
            var attempt = RunRecord.AttemptRecord(attempt: 1, simulatorUDID: "UDID-1", startedAt: stamp(clock))
            try store.startAttempt(attempt, runID: runID, layer: layer)
            try store.appendEvent(
                .init(type: "layer-started", layer: layer, payload: #"{"attempt":1}"#, at: at(clock)), runID: runID)
            var failed = false
            for index in 0..<testsPerLayer {
                clock += 0.5
                let fails = failing && index == 0
                failed = failed || fails
                let result = TestCaseResult(
                    identifier: "\(layer.capitalized)Tests/test\(index)()", status: fails ? .failed : .passed,
                    durationSeconds: 0.25 + Double(index) / 100, failureMessage: fails ? "XCTAssertTrue failed" : nil)
                try store.recordTestResults([result], runID: runID, layer: layer, attempt: 1)
                try store.appendEvent(
                    try .init(type: "test-finished", layer: layer, encoding: result, at: at(clock)), runID: runID)
            }
            clock += 1
            attempt.outcome = failed ? .testsFailed : .passed
            attempt.exit = failed ? "65" : "0"
            attempt.finishedAt = stamp(clock)
            attempt.durationSeconds = 6
            attempt.artifacts = [
                ArtifactRecord(kind: .exitCode, path: "artifacts/\(runID)/\(layer)/exit-code", bytes: 2),
                ArtifactRecord(kind: .log, path: "artifacts/\(runID)/\(layer)/xcodebuild.log", bytes: 20_000),
                ArtifactRecord(
                    kind: .resultBundle, path: "artifacts/\(runID)/\(layer)/Reader.xcresult", bytes: 400_000,
                    sha256: String(repeating: "5e", count: 32)),
            ]
            try store.finishAttempt(attempt, runID: runID, layer: layer)
            try store.finishLayer(
                runID: runID, layer: layer, outcome: attempt.outcome ?? .passed, evidence: [], at: at(clock))
            try store.appendEvent(.init(type: "layer-finished", layer: layer, at: at(clock)), runID: runID)
        }
        try store.updateRun(
            runID,
            RunUpdate(
                status: .finished, finishedAt: stamp(clock + 1), durationSeconds: clock + 1, exitCode: failing ? 1 : 0))
        try store.appendEvent(.init(type: "run-finished", at: at(clock + 1)), runID: runID)
    }
}

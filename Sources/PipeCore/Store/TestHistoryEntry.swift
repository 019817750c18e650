import Foundation
import PipeBasics

/// One past result of a test.
public struct TestHistoryEntry: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    public var layer: String
    public var attempt: Int
    public var commit: String?
    public var status: TestCaseResult.Status
    public var durationSeconds: Double?
    public var failureMessage: String?
    /// When the attempt began.
    public var at: Date

    public init(
        runID: String, pipeline: String, layer: String, attempt: Int, commit: String?, status: TestCaseResult.Status,
        durationSeconds: Double?, failureMessage: String?, at: Date
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.layer = layer
        self.attempt = attempt
        self.commit = commit
        self.status = status
        self.durationSeconds = durationSeconds
        self.failureMessage = failureMessage
        self.at = at
    }
}

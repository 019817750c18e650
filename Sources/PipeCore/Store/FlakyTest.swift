import Foundation
import PipeBasics

/// A test that both passed and failed at one commit.
public struct FlakyTest: Sendable, Equatable {
    public var pipeline: String
    public var layer: String
    public var identifier: String
    public var commit: String
    public var passes: Int
    public var failures: Int
    /// The runs that saw it, oldest first.
    public var runIDs: [String]
    public var lastSeen: Date

    public init(
        pipeline: String, layer: String, identifier: String, commit: String, passes: Int, failures: Int,
        runIDs: [String], lastSeen: Date
    ) {
        self.pipeline = pipeline
        self.layer = layer
        self.identifier = identifier
        self.commit = commit
        self.passes = passes
        self.failures = failures
        self.runIDs = runIDs
        self.lastSeen = lastSeen
    }
}

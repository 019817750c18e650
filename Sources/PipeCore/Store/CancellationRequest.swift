import Foundation
import PipeBasics

/// A request, from another process, to cancel a run.
public struct CancellationRequest: Sendable, Equatable {
    public var reason: String
    public var requestedBy: String
    public var at: Date

    public init(reason: String, requestedBy: String, at: Date) {
        self.reason = reason
        self.requestedBy = requestedBy
        self.at = at
    }
}

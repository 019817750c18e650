import Foundation
import PipeBasics

/// What `requestCancellation` did.
public enum CancellationOutcome: Sendable, Equatable {
    /// The run is in progress: its process will see the request.
    case requested
    /// Someone asked before; that first request stands.
    case alreadyRequested(CancellationRequest)
    /// The run has already ended with this status: nothing to cancel.
    case notInProgress(RunStatus)
}

import Foundation

/// What `RemoteHost.pullBack` brought back: the item, and the output of the command run beside it.
public struct PullBackResult {
    /// The downloaded item (as `download` returns it), or why it could not be brought back.
    public var transfer: Result<TransferSummary, Error>
    /// Whether the item did not exist on the host (then `transfer` is a failure and nothing was written locally).
    public var missing: Bool
    /// What the command printed, or why it could not run; `nil` when no command was given.
    public var command: Result<CapturedOutput, Error>?

    public init(transfer: Result<TransferSummary, Error>, missing: Bool, command: Result<CapturedOutput, Error>?) {
        self.transfer = transfer
        self.missing = missing
        self.command = command
    }
}

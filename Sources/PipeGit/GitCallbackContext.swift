import PipeCore

/// Carries a cancellation token into libgit2's C callbacks through their `payload` pointer.
///
/// The owner keeps it alive around the C call (`withExtendedLifetime`); callbacks only borrow it
/// (`takeUnretainedValue`), so nothing is released twice however often libgit2 calls back.
final class GitCallbackContext {
    private let cancellation: CancellationToken?
    private(set) var abortReason: String?

    init(cancellation: CancellationToken?) {
        self.cancellation = cancellation
    }

    static func from(_ payload: UnsafeMutableRawPointer?) -> GitCallbackContext? {
        payload.map { Unmanaged<GitCallbackContext>.fromOpaque($0).takeUnretainedValue() }
    }

    /// True once the token has fired; the callback then returns non-zero and libgit2 stops the transfer.
    func shouldAbort() -> Bool {
        if abortReason == nil, let reason = cancellation?.cancellationReason { abortReason = reason }
        return abortReason != nil
    }
}

import Foundation

#if canImport(CoreHaptics)
    import CoreHaptics
#else
    import CoreHapticsStandIn
#endif

/// Saves a record when the user taps Save, shows the result, and confirms a successful save with one haptic.
///
/// The haptic is played after the save succeeded, never at the tap, and never after a failure (the error is shown
/// instead). Taps while a save is in progress are ignored, so rapid taps neither save twice nor play extra
/// haptics. Haptics only add to what the screen shows: without haptics hardware the result is the same, and a
/// player failure is recorded for diagnosis but never turns a saved record into a failure.
@MainActor
public final class SaveController {
    /// What a tap did.
    public enum TapOutcome: Equatable, Sendable {
        case saved
        case failed(String)
        /// A save was already in progress: the tap was ignored.
        case ignored
    }

    public private(set) var status: SaveStatus = .idle
    /// Haptic failures, for diagnosis only (never shown as the save's result).
    public private(set) var hapticFailures: [String] = []

    private let store: RecordSaving
    private let haptics: HapticPlaying

    public init(store: RecordSaving, haptics: HapticPlaying) {
        self.store = store
        self.haptics = haptics
    }

    /// The Save button.
    @discardableResult
    public func tapSave(_ text: String) async -> TapOutcome {
        guard status != .saving else { return .ignored }
        status = .saving
        do {
            try await store.save(text)
        } catch {
            let message = (error as? LocalizedError)?.errorDescription ?? "The record could not be saved."
            status = .failed(message)
            return .failed(message)
        }
        status = .saved
        confirm()
        return .saved
    }

    private func confirm() {
        guard haptics.supportsHaptics else { return }
        do {
            try haptics.play(confirmationEvents())
        } catch {
            hapticFailures.append(String(describing: error))
        }
    }
}

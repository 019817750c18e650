#if canImport(CoreHaptics)
    import CoreHaptics
#else
    import CoreHapticsStandIn
#endif

/// Plays haptic events: `CoreHapticsPlayer` in the app, a recording player in tests.
///
/// The seam that lets tests check *when* and *how often* feedback is requested, instead of whether a simulator
/// vibrated (it never does).
public protocol HapticPlaying: AnyObject {
    /// Whether this device can play haptics at all (`CHHapticEngine.capabilitiesForHardware().supportsHaptics`).
    var supportsHaptics: Bool { get }

    /// Plays `events` now. Starting the engine, making the pattern and playing can each fail.
    func play(_ events: [CHHapticEvent]) throws
}

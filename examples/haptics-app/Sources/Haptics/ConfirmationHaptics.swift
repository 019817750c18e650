#if canImport(CoreHaptics)
    import CoreHaptics
#else
    import CoreHapticsStandIn
#endif

/// The "saved" confirmation: one short transient event, at once.
///
/// The app plays exactly this, and the tests check exactly this: it is never rebuilt in a test, so the two cannot
/// drift apart. Intensity and sharpness are a starting point tuned on a device; when the feel changes (say, to a
/// two-beat rhythm), this definition and its tests change first, then the feel is checked on a device again.
public func confirmationEvents() -> [CHHapticEvent] {
    let event = CHHapticEvent(
        eventType: .hapticTransient,
        parameters: [
            CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.65),
            CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.35),
        ],
        relativeTime: 0
    )
    return [event]
}

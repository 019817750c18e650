#if canImport(CoreHaptics)
    import CoreHaptics
#else
    import CoreHapticsStandIn
#endif

/// The app's player over CoreHaptics.
///
/// It checks the hardware before making an engine, starts the engine lazily, and after the system stops or resets
/// the engine (an audio interruption, the app going to the background) it starts it again before the next play:
/// an old player is not assumed to still work.
public final class CoreHapticsPlayer: HapticPlaying {
    private var engine: CHHapticEngine?
    private var engineNeedsStart = true

    public init() {}

    public var supportsHaptics: Bool { CHHapticEngine.capabilitiesForHardware().supportsHaptics }

    public func play(_ events: [CHHapticEvent]) throws {
        guard supportsHaptics else { return }
        let engine = try preparedEngine()
        let pattern = try CHHapticPattern(events: events, parameters: [])
        let player = try engine.makePlayer(with: pattern)
        try player.start(atTime: CHHapticTimeImmediate)
    }

    private func preparedEngine() throws -> CHHapticEngine {
        let engine = try self.engine ?? makeEngine()
        if engineNeedsStart {
            try engine.start()
            engineNeedsStart = false
        }
        return engine
    }

    private func makeEngine() throws -> CHHapticEngine {
        let engine = try CHHapticEngine()
        engine.stoppedHandler = { [weak self] _ in self?.engineNeedsStart = true }
        engine.resetHandler = { [weak self] in self?.engineNeedsStart = true }
        self.engine = engine
        return engine
    }
}

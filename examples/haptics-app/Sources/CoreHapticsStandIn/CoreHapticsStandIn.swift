// A stand-in for the parts of Apple's CoreHaptics framework that the Haptics example touches, so the same code
// compiles and its tests run on Linux. Same names and shapes as the real framework (iOS 13+), nothing more; where
// CoreHaptics exists this file is empty and the real framework is used. It has no haptics hardware: it says so the
// way a device without a Taptic Engine (or a simulator) does.
#if !canImport(CoreHaptics)
    import Foundation

    /// A point in time, in seconds, relative to when a pattern starts.
    public typealias TimeInterval = Double

    /// Start a player now. (Apple's name, kept so the same code compiles.)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public let CHHapticTimeImmediate: TimeInterval = 0

    /// One haptic (or audio) event of a pattern.
    open class CHHapticEvent {
        /// What the event is.
        public struct EventType: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            /// A short tap, like a click.
            public static let hapticTransient = EventType(rawValue: "HapticTransient")
            /// A vibration that lasts for a duration.
            public static let hapticContinuous = EventType(rawValue: "HapticContinuous")
        }

        /// Which property of an event a parameter sets.
        public struct ParameterID: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            /// Strength, 0…1.
            public static let hapticIntensity = ParameterID(rawValue: "HapticIntensity")
            /// Feel, from round (0) to crisp (1).
            public static let hapticSharpness = ParameterID(rawValue: "HapticSharpness")
        }

        public let type: EventType
        public let eventParameters: [CHHapticEventParameter]
        public var relativeTime: TimeInterval
        public var duration: TimeInterval

        public init(
            eventType type: EventType, parameters eventParams: [CHHapticEventParameter], relativeTime time: TimeInterval
        ) {
            self.type = type
            self.eventParameters = eventParams
            self.relativeTime = time
            self.duration = 0
        }
    }

    /// One parameter of an event.
    open class CHHapticEventParameter {
        public let parameterID: CHHapticEvent.ParameterID
        public var value: Float

        public init(parameterID: CHHapticEvent.ParameterID, value: Float) {
            self.parameterID = parameterID
            self.value = value
        }
    }

    /// A pattern: events (and dynamic parameters, which the example does not use) to play together.
    open class CHHapticPattern {
        public let events: [CHHapticEvent]

        public init(events: [CHHapticEvent], parameters: [Any]) throws {
            self.events = events
        }
    }

    /// What the hardware can play.
    public protocol CHHapticDeviceCapability {
        var supportsHaptics: Bool { get }
        var supportsAudio: Bool { get }
    }

    /// Plays one pattern.
    public protocol CHHapticPatternPlayer {
        func start(atTime time: TimeInterval) throws
    }

    /// The haptic engine. Here there is no hardware: creating or starting one fails as it does on such devices.
    open class CHHapticEngine {
        /// Why the engine stopped (an audio interruption, the app going to the background, …).
        public enum StoppedReason: Int, Sendable {
            case audioSessionInterrupt = 1
            case applicationSuspended = 2
            case idleTimeout = 3
            case systemError = -1
        }

        public typealias StoppedHandler = (StoppedReason) -> Void
        public typealias ResetHandler = () -> Void

        open var stoppedHandler: StoppedHandler = { _ in }
        open var resetHandler: ResetHandler = {}

        public init() throws {
            throw StandInError.noHapticsHardware
        }

        open class func capabilitiesForHardware() -> CHHapticDeviceCapability {
            NoHardware()
        }

        open func start() throws { throw StandInError.noHapticsHardware }

        open func stop(completionHandler: ((Error?) -> Void)? = nil) { completionHandler?(nil) }

        open func makePlayer(with pattern: CHHapticPattern) throws -> CHHapticPatternPlayer {
            throw StandInError.noHapticsHardware
        }

        private struct NoHardware: CHHapticDeviceCapability {
            var supportsHaptics: Bool { false }
            var supportsAudio: Bool { false }
        }

        private enum StandInError: Error {
            case noHapticsHardware
        }
    }
#endif

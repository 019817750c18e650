/// A simulator as a host lists it (`xcrun simctl list devices available -j`).
public struct Simulator: Sendable, Equatable, Codable {
    public var udid: String
    public var name: String
    /// e.g. `com.apple.CoreSimulator.SimRuntime.iOS-17-5`, or a display name on Xcode ≤ 10.1.
    public var runtimeIdentifier: String
    /// e.g. `iOS 17.5`.
    public var runtimeName: String
    /// e.g. `iOS`.
    public var platform: String
    /// e.g. `17.5`.
    public var runtimeVersion: String
    /// `Shutdown`, `Booted`, …
    public var state: String
    public var isAvailable: Bool
    public var availabilityError: String?
    public var deviceTypeIdentifier: String?

    public init(
        udid: String, name: String, runtimeIdentifier: String, runtimeName: String, platform: String,
        runtimeVersion: String, state: String, isAvailable: Bool = true, availabilityError: String? = nil,
        deviceTypeIdentifier: String? = nil
    ) {
        self.udid = udid
        self.name = name
        self.runtimeIdentifier = runtimeIdentifier
        self.runtimeName = runtimeName
        self.platform = platform
        self.runtimeVersion = runtimeVersion
        self.state = state
        self.isAvailable = isAvailable
        self.availabilityError = availabilityError
        self.deviceTypeIdentifier = deviceTypeIdentifier
    }

    /// `iPhone 15 (iOS 17.5) 90052AC6-…`, for messages.
    public var summary: String { "\(name) (\(runtimeName)) \(udid)" }
}

/// The simulator chosen for a run, with the reason written into the run record.
public struct SimulatorChoice: Sendable, Equatable, Codable {
    public var simulator: Simulator
    public var reason: String

    public init(simulator: Simulator, reason: String) {
        self.simulator = simulator
        self.reason = reason
    }
}

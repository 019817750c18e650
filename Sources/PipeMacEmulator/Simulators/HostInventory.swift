import Foundation

/// The simulators, runtimes and device types of an emulated host as `simctl` and `xcodebuild` see them: the host
/// config with the run-time state file applied.
struct HostInventory {
    /// One simulator device, resolved.
    struct Device {
        var udid: String
        var name: String
        var deviceTypeIdentifier: String
        var runtimeIdentifier: String
        var state: String
        var lastBootedAt: String?
        var isAvailable: Bool
        var availabilityError: String?
        /// Nil when the device's runtime is not installed on the host.
        var runtime: EmulatedHostConfig.Runtime?
        var installedApps: [String: String]

        var isBooted: Bool { state == SimulatorState.booted }
    }

    /// The reason a real Mac gives for a device whose runtime is gone (Xcode 15 and later).
    static let missingRuntimeError = "runtime profile not found using \"System\" match policy"

    let config: EmulatedHostConfig
    let runtimes: [EmulatedHostConfig.Runtime]
    let deviceTypes: [EmulatedHostConfig.DeviceType]
    let devices: [Device]
    let home: String

    init(config: EmulatedHostConfig, records: [String: SimulatorStateStore.DeviceRecord], home: String) {
        self.config = config
        self.home = home
        runtimes = config.runtimes
        deviceTypes = DeviceTypeCatalog.resolve(config: config)
        // Devices `simctl create` made follow the config's, in the order they were made (UDIDs sort them stably).
        let created = records.sorted { $0.key < $1.key }.compactMap { udid, record in
            record.created.map {
                EmulatedHostConfig.Simulator(
                    udid: udid, name: $0.name, runtime: $0.runtime, deviceType: $0.deviceType, state: nil,
                    available: nil, availabilityError: nil, lastBootedAt: nil)
            }
        }
        let simulators = config.simulators.filter { records[$0.udid]?.deleted != true } + created
        devices = simulators.map { simulator in
            let runtime = config.runtimes.first { $0.identifier == simulator.runtime }
            var isAvailable = simulator.available ?? true
            var availabilityError = simulator.availabilityError
            if let runtime {
                if runtime.isAvailable == false {
                    isAvailable = false
                    availabilityError = availabilityError ?? runtime.availabilityError ?? Self.missingRuntimeError
                }
            } else {
                isAvailable = false
                availabilityError = availabilityError ?? Self.missingRuntimeError
            }
            if !isAvailable, availabilityError == nil { availabilityError = "device type not supported by runtime" }
            let record = records[simulator.udid]
            return Device(
                udid: simulator.udid, name: simulator.name, deviceTypeIdentifier: simulator.deviceType,
                runtimeIdentifier: simulator.runtime,
                state: record?.state ?? simulator.state ?? SimulatorState.shutdown,
                lastBootedAt: record?.lastBootedAt ?? simulator.lastBootedAt,
                isAvailable: isAvailable, availabilityError: isAvailable ? nil : availabilityError,
                runtime: runtime, installedApps: record?.installedApps ?? [:])
        }
    }

    /// Loads the config's state file and resolves everything.
    static func load(config: EmulatedHostConfig, configURL: URL, environment: [String: String]) throws
        -> HostInventory
    {
        let records = try SimulatorStateStore(configURL: configURL).update { _ in }.1
        return HostInventory(config: config, records: records, home: environment["HOME"] ?? NSHomeDirectory())
    }

    /// The device with this UDID (any case), available or not.
    func device(udid: String) -> Device? {
        devices.first { $0.udid.caseInsensitiveCompare(udid) == .orderedSame }
    }

    func deviceType(_ identifier: String) -> EmulatedHostConfig.DeviceType? {
        deviceTypes.first { $0.identifier == identifier }
    }

    /// Runtime keys in the order `simctl` groups devices: installed runtimes first, then runtimes that only
    /// devices still mention.
    var runtimeKeys: [String] {
        var keys = runtimes.map(\.identifier)
        for device in devices where !keys.contains(device.runtimeIdentifier) { keys.append(device.runtimeIdentifier) }
        return keys
    }

    func dataPath(of device: Device) -> String {
        "\(home)/Library/Developer/CoreSimulator/Devices/\(device.udid)/data"
    }

    func logPath(of device: Device) -> String {
        "\(home)/Library/Logs/CoreSimulator/\(device.udid)"
    }
}

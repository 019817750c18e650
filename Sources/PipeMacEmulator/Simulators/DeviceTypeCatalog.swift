/// Simulator device types the emulator knows without being told: names, families and model identifiers as
/// Xcode 16 lists them. A host config's `deviceTypes` adds to or overrides these.
enum DeviceTypeCatalog {
    typealias DeviceType = EmulatedHostConfig.DeviceType

    static let prefix = "com.apple.CoreSimulator.SimDeviceType."

    static let known: [DeviceType] = [
        entry("iPhone-SE-3rd-generation", "iPhone SE (3rd generation)", "iPhone", "iPhone14,6", "15.4.0"),
        entry("iPhone-14", "iPhone 14", "iPhone", "iPhone14,7", "16.0.0"),
        entry("iPhone-15", "iPhone 15", "iPhone", "iPhone15,4", "17.0.0"),
        entry("iPhone-15-Plus", "iPhone 15 Plus", "iPhone", "iPhone15,5", "17.0.0"),
        entry("iPhone-15-Pro", "iPhone 15 Pro", "iPhone", "iPhone16,1", "17.0.0"),
        entry("iPhone-15-Pro-Max", "iPhone 15 Pro Max", "iPhone", "iPhone16,2", "17.0.0"),
        entry("iPhone-16", "iPhone 16", "iPhone", "iPhone17,3", "18.0.0"),
        entry("iPhone-16-Plus", "iPhone 16 Plus", "iPhone", "iPhone17,4", "18.0.0"),
        entry("iPhone-16-Pro", "iPhone 16 Pro", "iPhone", "iPhone17,1", "18.0.0"),
        entry("iPhone-16-Pro-Max", "iPhone 16 Pro Max", "iPhone", "iPhone17,2", "18.0.0"),
        entry("iPad-10th-generation", "iPad (10th generation)", "iPad", "iPad13,18", "16.0.0"),
        entry("iPad-mini-6th-generation", "iPad mini (6th generation)", "iPad", "iPad14,1", "15.0.0"),
        entry("iPad-Air-11-inch-M2", "iPad Air 11-inch (M2)", "iPad", "iPad14,8", "17.4.0"),
        entry("iPad-Pro-11-inch-M4", "iPad Pro 11-inch (M4)", "iPad", "iPad16,3", "17.4.0"),
        entry("iPad-Pro-13-inch-M4", "iPad Pro 13-inch (M4)", "iPad", "iPad16,5", "17.4.0"),
    ]

    private static func entry(
        _ suffix: String, _ name: String, _ family: String, _ model: String, _ minimum: String
    ) -> DeviceType {
        DeviceType(
            identifier: prefix + suffix, name: name, productFamily: family, modelIdentifier: model,
            minRuntimeVersionString: minimum)
    }

    /// The device types a host lists: the catalog, then the config's own entries (which win), then any type a
    /// simulator uses that neither knows (named after that simulator).
    static func resolve(config: EmulatedHostConfig) -> [DeviceType] {
        var types = known
        for custom in config.deviceTypes ?? [] {
            if let index = types.firstIndex(where: { $0.identifier == custom.identifier }) {
                types[index] = merged(custom, over: types[index])
            } else {
                types.append(custom)
            }
        }
        for simulator in config.simulators where !types.contains(where: { $0.identifier == simulator.deviceType }) {
            let family = simulator.deviceType.dropFirst(prefix.count).hasPrefix("iPad") ? "iPad" : "iPhone"
            types.append(
                DeviceType(
                    identifier: simulator.deviceType, name: simulator.name, productFamily: family,
                    modelIdentifier: nil, minRuntimeVersionString: nil))
        }
        return types
    }

    private static func merged(_ custom: DeviceType, over base: DeviceType) -> DeviceType {
        DeviceType(
            identifier: custom.identifier, name: custom.name,
            productFamily: custom.productFamily ?? base.productFamily,
            modelIdentifier: custom.modelIdentifier ?? base.modelIdentifier,
            minRuntimeVersionString: custom.minRuntimeVersionString ?? base.minRuntimeVersionString)
    }
}

/// `simctl list …` output, JSON and text, in the shape Xcode 15/16 print (apple-formats.md sections 1 and 2).
struct SimctlListing {
    /// Which devices a listing keeps.
    enum DeviceFilter: Equatable {
        case all
        case available
        case booted
        /// A search term: devices whose name or UDID contains it (case-insensitive).
        case search(String)

        func keeps(_ device: HostInventory.Device) -> Bool {
            switch self {
            case .all: return true
            case .available: return device.isAvailable
            case .booted: return device.isBooted
            case .search(let term):
                return device.name.localizedCaseInsensitiveContains(term)
                    || device.udid.localizedCaseInsensitiveContains(term)
            }
        }
    }

    /// The sections `simctl list` knows, in the order a full listing prints them.
    enum Section: String, CaseIterable {
        case devicetypes, runtimes, devices, pairs
    }

    let inventory: HostInventory

    /// Size of a fresh device's data folder, and of one that has been booted (real values from captures).
    private static let freshDataSize = 18_337_792
    private static let usedDataSize = 2_255_896_576
    private static let usedLogSize = 188_416

    // MARK: JSON

    func json(sections: [Section], filter: DeviceFilter, escapesSlashes: Bool) -> String {
        let members = sections.map { section -> AppleJSON.Member in
            switch section {
            case .devicetypes: return AppleJSON.Member("devicetypes", .array(inventory.deviceTypes.map(deviceTypeJSON)))
            case .runtimes: return AppleJSON.Member("runtimes", .array(inventory.runtimes.map(runtimeJSON)))
            case .devices: return AppleJSON.Member("devices", devicesJSON(filter: filter))
            case .pairs: return AppleJSON.Member("pairs", .object([]))
            }
        }
        return AppleJSON.object(members).rendered(AppleJSON.Style(escapesSlashes: escapesSlashes))
    }

    private func devicesJSON(filter: DeviceFilter) -> AppleJSON {
        // Every runtime key stays, with an empty array when the filter left none of its devices (as simctl does).
        .object(
            inventory.runtimeKeys.map { key in
                let devices = inventory.devices.filter { $0.runtimeIdentifier == key && filter.keeps($0) }
                return AppleJSON.Member(key, .array(devices.map(deviceJSON)))
            })
    }

    private func deviceJSON(_ device: HostInventory.Device) -> AppleJSON {
        var members: [AppleJSON.Member] = []
        if let booted = device.lastBootedAt { members.append(.init("lastBootedAt", .string(booted))) }
        members.append(.init("dataPath", .string(inventory.dataPath(of: device))))
        let used = device.lastBootedAt != nil
        members.append(.init("dataPathSize", .int(used ? Self.usedDataSize : Self.freshDataSize)))
        members.append(.init("logPath", .string(inventory.logPath(of: device))))
        members.append(.init("udid", .string(device.udid)))
        members.append(.init("isAvailable", .bool(device.isAvailable)))
        if let error = device.availabilityError { members.append(.init("availabilityError", .string(error))) }
        if used { members.append(.init("logPathSize", .int(Self.usedLogSize))) }
        members.append(.init("deviceTypeIdentifier", .string(device.deviceTypeIdentifier)))
        members.append(.init("state", .string(device.state)))
        members.append(.init("name", .string(device.name)))
        return .object(members)
    }

    private func runtimeJSON(_ runtime: EmulatedHostConfig.Runtime) -> AppleJSON {
        let bundle = Self.runtimeBundlePath(runtime)
        var members: [AppleJSON.Member] = [
            .init("bundlePath", .string(bundle)),
            .init("buildversion", .string(runtime.buildversion)),
            .init("platform", .string(runtime.platform)),
            .init("runtimeRoot", .string(bundle + "/Contents/Resources/RuntimeRoot")),
            .init("identifier", .string(runtime.identifier)),
            .init("version", .string(runtime.version)),
            .init("isInternal", .bool(false)),
            .init("isAvailable", .bool(runtime.isAvailable ?? true)),
        ]
        if runtime.isAvailable == false {
            members.append(
                .init("availabilityError", .string(runtime.availabilityError ?? HostInventory.missingRuntimeError)))
        }
        members.append(.init("name", .string(runtime.name)))
        let supported = supportedDeviceTypes(of: runtime).map { type -> AppleJSON in
            .object([
                .init("bundlePath", .string(Self.deviceTypeBundlePath(type))),
                .init("name", .string(type.name)),
                .init("identifier", .string(type.identifier)),
                .init("productFamily", .string(type.productFamily ?? "iPhone")),
            ])
        }
        members.append(.init("supportedDeviceTypes", .array(supported)))
        return .object(members)
    }

    private func deviceTypeJSON(_ type: EmulatedHostConfig.DeviceType) -> AppleJSON {
        let minimum = type.minRuntimeVersionString ?? "13.0.0"
        var members: [AppleJSON.Member] = [
            .init("productFamily", .string(type.productFamily ?? "iPhone")),
            .init("bundlePath", .string(Self.deviceTypeBundlePath(type))),
            .init("maxRuntimeVersion", .int(4_294_967_295)),
            .init("maxRuntimeVersionString", .string("65535.255.255")),
            .init("identifier", .string(type.identifier)),
        ]
        if let model = type.modelIdentifier { members.append(.init("modelIdentifier", .string(model))) }
        members += [
            .init("minRuntimeVersionString", .string(minimum)),
            .init("minRuntimeVersion", .int(Self.packedVersion(minimum))),
            .init("name", .string(type.name)),
        ]
        return .object(members)
    }

    // MARK: Text

    func text(sections: [Section], filter: DeviceFilter) -> String {
        var lines: [String] = []
        for section in sections {
            switch section {
            case .devicetypes:
                lines.append("== Device Types ==")
                lines += inventory.deviceTypes.map { "\($0.name) (\($0.identifier))" }
            case .runtimes:
                lines.append("== Runtimes ==")
                lines += inventory.runtimes.map { runtime in
                    var line = "\(runtime.name) (\(runtime.version) - \(runtime.buildversion)) - \(runtime.identifier)"
                    if runtime.isAvailable == false {
                        line += " (unavailable, \(runtime.availabilityError ?? HostInventory.missingRuntimeError))"
                    }
                    return line
                }
            case .devices:
                lines += deviceLines(filter: filter)
            case .pairs:
                lines.append("== Device Pairs ==")
            }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    private func deviceLines(filter: DeviceFilter) -> [String] {
        var lines = ["== Devices =="]
        for key in inventory.runtimeKeys {
            let devices = inventory.devices.filter { $0.runtimeIdentifier == key && filter.keeps($0) }
            if let runtime = inventory.runtimes.first(where: { $0.identifier == key }), runtime.isAvailable != false {
                lines.append("-- \(runtime.name) --")
            } else {
                // A runtime that is gone shows its identifier; the `available` filter drops the whole section.
                if devices.isEmpty { continue }
                lines.append("-- Unavailable: \(key) --")
            }
            for device in devices {
                // Real simctl ends every device line with one space.
                var line = "    \(device.name) (\(device.udid)) (\(device.state))"
                if let error = device.availabilityError { line += " (unavailable, \(error))" }
                lines.append(line + " ")
            }
        }
        return lines
    }

    // MARK: Paths and versions

    static func runtimeBundlePath(_ runtime: EmulatedHostConfig.Runtime) -> String {
        "/Library/Developer/CoreSimulator/Volumes/\(runtime.platform)_\(runtime.buildversion)/Library/Developer/"
            + "CoreSimulator/Profiles/Runtimes/\(runtime.name).simruntime"
    }

    static func deviceTypeBundlePath(_ type: EmulatedHostConfig.DeviceType) -> String {
        "/Applications/Xcode.app/Contents/Developer/Platforms/iPhoneOS.platform/Library/Developer/CoreSimulator/"
            + "Profiles/DeviceTypes/\(type.name).simdevicetype"
    }

    /// `major << 16 | minor << 8 | patch`, the way `minRuntimeVersion` encodes a version.
    static func packedVersion(_ version: String) -> Int {
        let parts = version.split(separator: ".").map { Int($0) ?? 0 } + [0, 0, 0]
        return parts[0] << 16 | parts[1] << 8 | parts[2]
    }

    private func supportedDeviceTypes(of runtime: EmulatedHostConfig.Runtime) -> [EmulatedHostConfig.DeviceType] {
        let families: Set<String> = runtime.platform == "iOS" ? ["iPhone", "iPad"] : []
        let runtimeVersion = Self.packedVersion(runtime.version)
        return inventory.deviceTypes.filter { type in
            families.contains(type.productFamily ?? "iPhone")
                && Self.packedVersion(type.minRuntimeVersionString ?? "0") <= runtimeVersion
        }
    }
}

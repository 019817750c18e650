import Foundation

/// One `-destination` value (`platform=iOS Simulator,id=…` or `platform=iOS Simulator,name=…,OS=…`) and how
/// xcodebuild matches it against the host's simulators.
struct DestinationSpecifier {
    /// The specifier's key-value pairs in the order given; a piece without `=` keeps an empty key.
    let pairs: [(key: String, value: String)]

    init(_ text: String) {
        pairs = text.split(separator: ",", omittingEmptySubsequences: true).map { piece in
            let parts = piece.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { return (String(parts[0]).trimmed, String(parts[1]).trimmed) }
            return ("", String(piece).trimmed)
        }
    }

    /// How xcodebuild echoes a specifier in its error: `{ platform:iOS Simulator, id:… }`.
    var echo: String {
        let inner = pairs.map { $0.key.isEmpty ? $0.value : "\($0.key):\($0.value)" }.joined(separator: ", ")
        return "{ \(inner) }"
    }

    func value(_ key: String) -> String? {
        pairs.first { $0.key == key }?.value
    }

    /// Available simulators that match, best first; empty when none does.
    func matches(in inventory: HostInventory) -> [HostInventory.Device] {
        if pairs.contains(where: { $0.key.isEmpty }) { return [] }
        var candidates = inventory.devices.filter { $0.isAvailable && $0.runtime != nil }
        if let platform = value("platform") {
            guard platform.hasSuffix(" Simulator") else { return [] }
            let runtimePlatform = String(platform.dropLast(" Simulator".count))
            candidates = candidates.filter {
                $0.runtime?.platform.caseInsensitiveCompare(runtimePlatform) == .orderedSame
            }
        }
        if let id = value("id") {
            candidates = candidates.filter { $0.udid.caseInsensitiveCompare(id) == .orderedSame }
        }
        if let name = value("name") {
            candidates = candidates.filter { $0.name == name }
        }
        let os = value("OS") ?? "latest"
        if os == "latest" {
            let newest = candidates.map { Self.versionKey($0.runtime?.version ?? "") }.max {
                $0.lexicographicallyPrecedes($1)
            }
            candidates = candidates.filter { Self.versionKey($0.runtime?.version ?? "") == newest }
        } else {
            candidates = candidates.filter { Self.versionKey($0.runtime?.version ?? "") == Self.versionKey(os) }
        }
        return candidates
    }

    /// The lines of "Available destinations for the … scheme:" (without indentation).
    static func availableDestinations(in inventory: HostInventory) -> [String] {
        var lines = [
            "{ platform:iOS, id:dvtdevice-DVTiPhonePlaceholder-iphoneos:placeholder, name:Any iOS Device }",
            "{ platform:iOS Simulator, id:dvtdevice-DVTiOSDeviceSimulatorPlaceholder-iphonesimulator:placeholder, "
                + "name:Any iOS Simulator Device }",
        ]
        let devices = inventory.devices.filter { $0.isAvailable && $0.runtime?.platform == "iOS" }
            .sorted { first, second in
                if first.name != second.name { return first.name < second.name }
                return Self.versionKey(first.runtime?.version ?? "").lexicographicallyPrecedes(
                    Self.versionKey(second.runtime?.version ?? ""))
            }
        lines += devices.map { line(for: $0) }
        return lines
    }

    /// `{ platform:iOS Simulator, id:…, OS:17.5, name:iPhone 15 }`
    static func line(for device: HostInventory.Device) -> String {
        "{ platform:iOS Simulator, id:\(device.udid), OS:\(device.runtime?.version ?? "?"), name:\(device.name) }"
    }

    /// `17.5`, `17.5.0` and `17.5.0.0` compare equal.
    static func versionKey(_ version: String) -> [Int] {
        var parts = version.split(separator: ".").map { Int($0) ?? -1 }
        while parts.count > 2, parts.last == 0 { parts.removeLast() }
        if parts.count == 1 { parts.append(0) }
        return parts
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespaces) }
}

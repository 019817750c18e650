import Foundation
import PipeCore

/// Reads the plain-text simctl listing line by line (`SimctlListParser.parseText`).
struct TextListingReader {
    private struct PendingDevice {
        var name: String
        var udid: String
        var state: String
        var unavailableReason: String?
        var header: Header
    }

    private struct Header {
        /// A display name (`iOS 17.5`) or, for `-- Unavailable: … --`, a runtime identifier.
        var key: String
        var runtimeUnavailable: Bool
    }

    private static let deviceGrammar = "'    <name> (<UDID>) (<state>)' with an optional ' (unavailable, <reason>)'"

    private var section: String?
    private var sawListing = false
    private var header: Header?
    private var devices: [PendingDevice] = []
    /// Display name → identifier, from the `== Runtimes ==` section of the full listing.
    private var runtimeIdentifiers: [String: String] = [:]

    mutating func read(line rawLine: String, number: Int) throws {
        let line = String(rawLine.reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
        guard !line.isEmpty else { return }
        // simctl's own NSLog notices (a stale CoreSimulatorService, Xcode 8) may come before the listing.
        if section == nil, header == nil, Self.isToolNotice(line) { return }
        if line.hasPrefix("== "), line.hasSuffix(" =="), line.count > 6 {
            section = String(line.dropFirst(3).dropLast(3))
            sawListing = true
            header = nil
            return
        }
        switch section {
        case nil, "Devices":
            try readDeviceSection(line, number: number)
        case "Runtimes":
            readRuntime(line)
        default:
            return  // Device Types, Device Pairs: not needed to choose a simulator.
        }
    }

    /// `2016-08-10 14:10:25.865 simctl[48890:1712880] …`: a line NSLog wrote for simctl itself.
    static func isToolNotice(_ line: String) -> Bool {
        let parts = line.split(separator: " ", maxSplits: 3)
        guard parts.count == 4, parts[2].hasPrefix("simctl["), parts[2].hasSuffix("]") else { return false }
        let date = parts[0].split(separator: "-")
        let time = parts[1].split(separator: ":")
        return date.map(\.count) == [4, 2, 2] && time.count == 3 && parts[0].allSatisfy { $0.isNumber || $0 == "-" }
    }

    func finish(firstLine: String) throws -> [Simulator] {
        guard sawListing else { throw SimctlListError.notAListing(firstLine: firstLine) }
        let simulators = devices.map { device -> (SimulatorRuntimeKey, Simulator) in
            var key = SimulatorRuntimeKey(key: device.header.key)
            if !device.header.runtimeUnavailable, let identifier = runtimeIdentifiers[device.header.key] {
                key.identifier = identifier
            }
            let reason: String? =
                SimctlListParser.isPlainUDID(device.udid)
                ? device.unavailableReason ?? (device.header.runtimeUnavailable ? "runtime unavailable" : nil)
                : "its UDID is not plain letters, digits and dashes, so Pipe never uses it"
            let simulator = Simulator(
                udid: device.udid, name: device.name, runtimeIdentifier: key.identifier, runtimeName: key.name,
                platform: key.platform, runtimeVersion: key.version, state: device.state,
                isAvailable: reason == nil, availabilityError: reason)
            return (key, simulator)
        }
        // A stable sort by runtime keeps the listed order of devices within one runtime.
        return simulators.enumerated().sorted { lhs, rhs in
            if lhs.element.0.identifier != rhs.element.0.identifier {
                return SimctlListParser.runtimeOrder(lhs.element.0, rhs.element.0)
            }
            return lhs.offset < rhs.offset
        }.map(\.element.1)
    }

    private mutating func readDeviceSection(_ line: String, number: Int) throws {
        if line.hasPrefix("-- "), line.hasSuffix(" --"), line.count > 6 {
            let inner = String(line.dropFirst(3).dropLast(3))
            if inner.hasPrefix("Unavailable: ") {
                header = Header(key: String(inner.dropFirst("Unavailable: ".count)), runtimeUnavailable: true)
            } else {
                header = Header(key: inner, runtimeUnavailable: false)
            }
            sawListing = true
            return
        }
        guard line.first == " " || line.first == "\t" else {
            guard sawListing else { throw SimctlListError.notAListing(firstLine: line) }
            throw SimctlListError.unreadableLine(
                number: number, line: line, expected: "a '-- <runtime> --' header or an indented device line")
        }
        guard let header else {
            throw SimctlListError.unreadableLine(
                number: number, line: line, expected: "a '-- <runtime> --' header before the first device")
        }
        guard let device = Self.device(from: line.trimmingCharacters(in: .whitespaces)) else {
            throw SimctlListError.unreadableLine(number: number, line: line, expected: Self.deviceGrammar)
        }
        devices.append(
            PendingDevice(
                name: device.name, udid: device.udid, state: device.state, unavailableReason: device.unavailableReason,
                header: header))
    }

    /// `iPad Pro 13-inch (M5) (17683048-…) (Shutdown) (unavailable, reason)`, read right to left.
    private static func device(
        from line: String
    ) -> (name: String, udid: String, state: String, unavailableReason: String?)? {
        var rest = Substring(line)
        guard let last = peelGroup(&rest) else { return nil }
        var unavailableReason: String?
        var state = last
        if last.hasPrefix("unavailable") {
            unavailableReason = SimctlListParser.unavailableReason("(\(last))") ?? "unavailable"
            guard let stateGroup = peelGroup(&rest) else { return nil }
            state = stateGroup
        }
        guard let udid = peelGroup(&rest), !udid.isEmpty,
            udid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { return nil }
        let name = rest.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !state.isEmpty else { return nil }
        return (name, udid, state, unavailableReason)
    }

    /// Removes a trailing `(…)` group (balanced) and returns its inside.
    private static func peelGroup(_ text: inout Substring) -> String? {
        guard text.last == ")" else { return nil }
        var depth = 0
        var index = text.endIndex
        while index > text.startIndex {
            index = text.index(before: index)
            switch text[index] {
            case ")": depth += 1
            case "(":
                depth -= 1
                if depth == 0 {
                    let inner = text[text.index(after: index)..<text.index(before: text.endIndex)]
                    text = text[..<index]
                    while text.last == " " { text = text.dropLast() }
                    return String(inner)
                }
            default: break
            }
        }
        return nil
    }

    /// `iOS 17.5 (17.5 - 21F79) - com.apple.CoreSimulator.SimRuntime.iOS-17-5[ (unavailable, …)]`, or the Xcode 7/8
    /// form with the identifier in parentheses. Lines of another shape are skipped: runtimes only refine names.
    private mutating func readRuntime(_ line: String) {
        guard let open = line.firstIndex(of: "(") else { return }
        let name = line[..<open].trimmingCharacters(in: .whitespaces)
        guard let range = line.range(of: SimulatorRuntimeKey.identifierPrefix) else { return }
        let identifier = line[range.lowerBound...].prefix { !$0.isWhitespace && $0 != ")" }
        guard !name.isEmpty, runtimeIdentifiers[name] == nil else { return }
        runtimeIdentifiers[name] = String(identifier)
    }
}

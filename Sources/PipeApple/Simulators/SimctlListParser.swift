import Foundation
import PipeCore

/// Reads `xcrun simctl list devices [available] -j`, `xcrun simctl list -j` and their plain-text forms into
/// `[Simulator]`, for every listing shape from Xcode 7 to Xcode 26 (see `apple-formats.md`, sections 1 and 2).
///
/// The result is ordered by platform, runtime version (numerically) and runtime identifier, then as listed, so
/// the same host gives the same array whatever order its JSON keys came in. Unavailable devices are returned too,
/// with `isAvailable == false` and their `availabilityError`; `SimulatorSelector` never picks them.
public enum SimctlListParser {
    /// Parses JSON when the output starts with `{`, the text listing otherwise.
    public static func parse(_ output: Data) throws -> [Simulator] {
        let firstByte = output.first { !isWhitespace($0) }
        if firstByte == UInt8(ascii: "{") { return try parseJSON(output) }
        guard firstByte != nil else { throw SimctlListError.emptyOutput }
        return try parseText(String(decoding: output, as: UTF8.self))
    }

    /// Parses the JSON listing of any Xcode era: runtime-identifier or display-name keys, `isAvailable` and/or
    /// the older `availability` string, escaped or plain slashes, empty runtime arrays, optional fields.
    ///
    /// When a `runtimes` array is present (full `list -j`), runtime names and versions come from it.
    public static func parseJSON(_ output: Data) throws -> [Simulator] {
        guard output.contains(where: { !isWhitespace($0) }) else { throw SimctlListError.emptyOutput }
        let topLevel: Any
        do {
            topLevel = try JSONSerialization.jsonObject(with: output, options: [])
        } catch {
            throw SimctlListError.notJSON(firstLine: ToolOutput.firstLine(output), detail: "it cannot be parsed")
        }
        guard let object = topLevel as? [String: Any] else {
            throw SimctlListError.notJSON(
                firstLine: ToolOutput.firstLine(output), detail: "the top level is not an object")
        }
        guard object["devices"] != nil else {
            throw SimctlListError.missingDevices(topLevelKeys: Array(object.keys))
        }
        let listing: Listing
        do {
            listing = try JSONDecoder().decode(Listing.self, from: output)
        } catch {
            let failure = DecodingFailure.describe(error)
            throw SimctlListError.invalidJSON(path: failure.path, detail: failure.detail)
        }
        let runtimes = RuntimeIndex(listing.runtimes ?? [])
        let keys = listing.devices.keys.map { runtimes.describe(key: $0) }.sorted(by: runtimeOrder)
        return keys.flatMap { key in
            (listing.devices[key.identifier] ?? []).map { $0.simulator(runtime: key) }
        }
    }

    /// Parses `xcrun simctl list devices [available]` or the full `xcrun simctl list` text.
    ///
    /// Device lines are read from the right (`<name> (<UDID>) (<state>)[ (unavailable, <reason>)]`), since names
    /// may hold parentheses; trailing spaces are ignored; `-- Unavailable: <identifier> --` sections mark their
    /// devices unavailable; a repeated runtime header is accepted.
    public static func parseText(_ text: String) throws -> [Simulator] {
        var reader = TextListingReader()
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            try reader.read(line: String(rawLine), number: lineNumber)
        }
        return try reader.finish(firstLine: ToolOutput.firstLine(text))
    }

    static func runtimeOrder(_ lhs: SimulatorRuntimeKey, _ rhs: SimulatorRuntimeKey) -> Bool {
        if lhs.platform != rhs.platform { return lhs.platform < rhs.platform }
        let left = NumericVersion(lhs.version)
        let right = NumericVersion(rhs.version)
        if let left, let right, left != right { return left < right }
        if (left == nil) != (right == nil) { return left != nil }
        return lhs.identifier < rhs.identifier
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

}

extension SimctlListParser {
    /// The part of the JSON listing Pipe reads; everything else (`devicetypes`, `pairs`, paths, sizes) is ignored.
    /// ASCII letters, digits and dashes, starting with a letter or digit (so never an option), at most 64: every
    /// UDID `simctl` writes is a UUID.
    public static func isPlainUDID(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 64, first != "-" else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") }
    }

    struct Listing: Decodable {
        var devices: [String: [Device]]
        var runtimes: [Runtime]?
    }

    /// `isAvailable`: `true`/`false`, or the strings `"YES"`/`"NO"` of the Xcode 10.1 betas.
    struct Availability: Decodable {
        var value: Bool

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                value = flag
                return
            }
            switch try container.decode(String.self).lowercased() {
            case "yes", "true": value = true
            case "no", "false": value = false
            case let other:
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected true, false, \"YES\" or \"NO\", found \"\(other)\"")
            }
        }
    }

    struct Device: Decodable {
        var udid: String
        var name: String
        var state: String?
        var isAvailable: Availability?
        /// `(available)` / `(unavailable, <reason>)` up to Xcode 10.2 (some listings put a space before it).
        var availability: String?
        var availabilityError: String?
        var deviceTypeIdentifier: String?

        func simulator(runtime: SimulatorRuntimeKey) -> Simulator {
            let legacy = availability?.trimmingCharacters(in: .whitespaces)
            let legacyUnavailable = legacy.map { $0.hasPrefix("(unavailable") }
            var available = isAvailable?.value ?? legacyUnavailable.map { !$0 } ?? true
            var reason = availabilityError.flatMap { $0.isEmpty ? nil : $0 }
            if reason == nil, !available, let legacy {
                reason = SimctlListParser.unavailableReason(legacy)
            }
            // The UDID reaches commands on the host: one that could be read as anything else is never chosen.
            if !SimctlListParser.isPlainUDID(udid) {
                available = false
                reason = "its UDID is not plain letters, digits and dashes, so Pipe never uses it"
            }
            return Simulator(
                udid: udid, name: name, runtimeIdentifier: runtime.identifier, runtimeName: runtime.name,
                platform: runtime.platform, runtimeVersion: runtime.version, state: state ?? "Unknown",
                isAvailable: available, availabilityError: available ? nil : reason,
                deviceTypeIdentifier: deviceTypeIdentifier)
        }
    }

    struct Runtime: Decodable {
        var identifier: String?
        var name: String?
        var version: String?
        var platform: String?
        var isAvailable: Availability?
    }

    /// `(unavailable, runtime profile not found)` → `runtime profile not found`.
    static func unavailableReason(_ availability: String) -> String? {
        var text = Substring(availability)
        if text.hasPrefix("(") { text = text.dropFirst() }
        if text.hasSuffix(")") { text = text.dropLast() }
        guard text.hasPrefix("unavailable") else { return nil }
        text = text.dropFirst("unavailable".count)
        if text.hasPrefix(",") { text = text.dropFirst() }
        let reason = text.trimmingCharacters(in: .whitespaces)
        return reason.isEmpty ? nil : reason
    }

    /// Runtime objects by identifier and by name. Two runtimes may share an identifier (iOS 18.0 and 18.0.1 both
    /// `…iOS-18-0`): the available one wins, then the newer version, so the choice never depends on list order.
    struct RuntimeIndex {
        private var byKey: [String: Runtime] = [:]

        init(_ runtimes: [Runtime]) {
            for runtime in runtimes {
                for key in [runtime.identifier, runtime.name].compactMap({ $0 }) {
                    if let existing = byKey[key], !Self.prefer(runtime, over: existing) { continue }
                    byKey[key] = runtime
                }
            }
        }

        func describe(key: String) -> SimulatorRuntimeKey {
            var described = SimulatorRuntimeKey(key: key)
            guard let runtime = byKey[key] else { return described }
            if let name = runtime.name, !name.isEmpty { described.name = name }
            if let version = runtime.version, NumericVersion(version) != nil { described.version = version }
            if let platform = runtime.platform, !platform.isEmpty {
                described.platform = SimulatorRuntimeKey.family(platform)
            }
            return described
        }

        private static func prefer(_ candidate: Runtime, over existing: Runtime) -> Bool {
            let candidateAvailable = candidate.isAvailable?.value ?? true
            let existingAvailable = existing.isAvailable?.value ?? true
            if candidateAvailable != existingAvailable { return candidateAvailable }
            let candidateVersion = candidate.version.flatMap(NumericVersion.init) ?? NumericVersion(components: [0])
            let existingVersion = existing.version.flatMap(NumericVersion.init) ?? NumericVersion(components: [0])
            if candidateVersion != existingVersion { return candidateVersion > existingVersion }
            return (candidate.version ?? "") > (existing.version ?? "")
        }
    }
}

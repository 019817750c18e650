import Foundation
import PipeBasics
import PipeCore

/// Creating a simulator when none matches the criteria (`simulator: { create: true }`): the device type and runtime
/// identifiers come from `simctl list -j`, the device from `simctl create`, and Pipe deletes
/// it with `simctl delete` when the run ends.
public enum SimulatorCreation {
    /// What `simctl create` will be asked for.
    public struct Plan: Sendable, Equatable {
        /// The new device's name, e.g. `Pipe iPhone 15 (iOS 17.5)`: says who made it.
        public var name: String
        public var deviceTypeIdentifier: String
        public var runtimeIdentifier: String
        /// The runtime's display name, e.g. `iOS 17.5`.
        public var runtimeName: String

        /// `xcrun simctl create <name> <device type> <runtime>`, quoted for a POSIX shell.
        public var command: String {
            ShellQuote.join(["xcrun", "simctl", "create", name, deviceTypeIdentifier, runtimeIdentifier])
        }
    }

    /// Why no simulator can be created; the message lists what the host offers.
    public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// The listing to read: the full `xcrun simctl list -j` (`list` takes one section at most; a second word would be
    /// a search term).
    public static let listCommand = "xcrun simctl list -j"

    /// `xcrun simctl delete <udid>`.
    public static func deleteCommand(udid: String) -> String {
        ShellQuote.join(["xcrun", "simctl", "delete", udid])
    }

    private struct Listing: Decodable {
        struct DeviceType: Decodable {
            var identifier: String
            var name: String
        }
        struct Runtime: Decodable {
            var identifier: String
            var name: String
            var version: String
            var platform: String?
            var isAvailable: SimctlListParser.Availability?
        }
        var devicetypes: [DeviceType]?
        var runtimes: [Runtime]?
    }

    /// Chooses the device type (by name, exactly) and the runtime (the criteria's requirement, newest first) from
    /// the JSON listing; the UDID criterion is ignored (a created device gets a new one).
    public static func plan(for criteria: SimulatorCriteria, listing: Data) throws -> Plan {
        let decoded: Listing
        do {
            decoded = try JSONDecoder().decode(Listing.self, from: listing)
        } catch {
            throw Failure(message: "the list of device types and runtimes could not be read: \(error)")
        }
        guard let deviceName = criteria.deviceName, !deviceName.isEmpty else {
            throw Failure(
                message: "`simulator.create: true` needs `simulator.device` (a device type such as iPhone 15)")
        }
        let types = decoded.devicetypes ?? []
        guard let type = types.first(where: { $0.name == deviceName || $0.identifier == deviceName }) else {
            throw Failure(
                message: "no device type '\(deviceName)' on the host to create a simulator from; it has "
                    + (types.isEmpty ? "none" : types.map(\.name).joined(separator: ", ")))
        }
        let requirement: RuntimeRequirement
        do {
            requirement = try RuntimeRequirement.parse(criteria.runtime, platform: criteria.platform)
        } catch {
            throw Failure(message: "`simulator.runtime` \(criteria.runtime ?? ""): \(error)")
        }
        let runtimes = (decoded.runtimes ?? []).filter {
            $0.isAvailable?.value != false && ($0.platform ?? criteria.platform) == criteria.platform
        }
        let candidates = runtimes.compactMap { runtime in
            NumericVersion(runtime.version).map { (runtime, $0) }
        }.filter { requirement.accepts($0.1) }.sorted { $0.1 > $1.1 }
        guard let (runtime, _) = candidates.first else {
            throw Failure(
                message: "no available \(criteria.platform) runtime \(requirement) on the host to create a "
                    + "\(deviceName) with; it has "
                    + (runtimes.isEmpty ? "none" : runtimes.map(\.name).joined(separator: ", ")))
        }
        return Plan(
            name: "Pipe \(type.name) (\(runtime.name))", deviceTypeIdentifier: type.identifier,
            runtimeIdentifier: runtime.identifier, runtimeName: runtime.name)
    }

    /// Whether `simctl delete` failed only because the device no longer exists ("Invalid device: <udid>").
    public static func isAlreadyGone(_ output: CapturedOutput) -> Bool {
        output.exit != .exited(0) && output.stderrText.contains("Invalid device:")
    }

    /// The new device's UDID from what `simctl create` printed (its only line).
    public static func readCreated(_ output: CapturedOutput) throws -> String {
        let udid = output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.exit == .exited(0), !udid.isEmpty, !udid.contains(where: \.isWhitespace) else {
            let said = (output.stderrText + " " + output.stdoutText).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(
                message: "`simctl create` ended with \(output.exit.artifactText)"
                    + (said.isEmpty ? "" : ": \(said.split(whereSeparator: \.isNewline).joined(separator: " / "))"))
        }
        return udid
    }
}

import Foundation

/// The emulated `xcrun simctl`: `list`, `boot`, `bootstatus`, `shutdown`, `create`, `delete`, `install`, `launch`.
///
/// Error texts and exit codes follow CoreSimulator's: a `SimError` with code N ends the process with N & 0xFF
/// (405 "current state" errors exit 149).
struct Simctl {
    let context: EmulatorContext

    private static let usage = """
        usage: simctl [--set <path>] [--profiles <path>] <subcommand> ...
        Command line utility to control the Simulator

        Subcommands (emulated by pipe-mac-emulator):
        \tboot              Boot a device.
        \tbootstatus        Checks or waits for a device to boot.
        \tcreate            Create a new device.
        \tdelete            Delete specified devices, unavailable devices, or all devices.
        \tinstall           Install an app on a device.
        \tlaunch            Launch an application by identifier on a device.
        \tlist              List available devices, device types, runtimes, or device pairs.
        \tshutdown          Shutdown a device.
        """

    func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            context.stderr.line(Self.usage)
            return 64
        }
        guard let (config, configURL) = context.loadHost() else { return EmulatorContext.configurationExitCode }
        let store = SimulatorStateStore(configURL: configURL)
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "list": return try list(rest, config: config, store: store)
            case "boot": return try boot(rest, config: config, store: store)
            case "bootstatus": return try bootStatus(rest, config: config, store: store)
            case "shutdown": return try shutdown(rest, config: config, store: store)
            case "install": return try install(rest, config: config, store: store)
            case "launch": return try launch(rest, config: config, store: store)
            case "create": return try create(rest, config: config, store: store)
            case "delete": return try delete(rest, config: config, store: store)
            case "help", "--help", "-h":
                context.stdout.line(Self.usage)
                return 0
            default:
                context.stderr.line("Unrecognized subcommand '\(command)'.")
                context.stderr.line(Self.usage)
                return 64
            }
        } catch let failure as SimctlFailure {
            context.stderr.line(failure.message)
            return failure.exitCode
        } catch {
            context.stderr.line("\(error)")
            return 1
        }
    }

    private func inventory(_ config: EmulatedHostConfig, _ store: SimulatorStateStore) -> HostInventory {
        HostInventory(
            config: config, records: store.read(), home: context.environment["HOME"] ?? NSHomeDirectory())
    }

    // MARK: list

    private func list(_ arguments: [String], config: EmulatedHostConfig, store: SimulatorStateStore) throws -> Int32 {
        var json = false
        var words: [String] = []
        for argument in arguments {
            switch argument {
            case "-j", "--json": json = true
            case "-v", "--verbose": break
            default: words.append(argument)
            }
        }
        var sections = SimctlListing.Section.allCases
        if let first = words.first, let section = SimctlListing.Section(rawValue: first) {
            sections = [section]
            words.removeFirst()
        }
        var filter = SimctlListing.DeviceFilter.all
        if let term = words.first {
            switch term {
            case "available": filter = .available
            case "booted": filter = .booted
            default: filter = .search(term)
            }
        }
        let listing = SimctlListing(inventory: inventory(config, store))
        if json {
            context.stdout.write(
                listing.json(sections: sections, filter: filter, escapesSlashes: config.jsonEscapesSlashes ?? true))
        } else {
            context.stdout.write(listing.text(sections: sections, filter: filter))
        }
        return 0
    }

    // MARK: boot, bootstatus, shutdown

    private func boot(_ arguments: [String], config: EmulatedHostConfig, store: SimulatorStateStore) throws -> Int32 {
        guard let name = arguments.first(where: { !$0.hasPrefix("-") }) else {
            throw SimctlFailure.usage("Usage: simctl boot <device> [--arch=<arch>]")
        }
        let device = try resolve(name, in: inventory(config, store))
        if config.faultSettings.simulatorBootFailure == true, !device.isBooted { throw SimctlFailure.bootFailure }
        try Self.boot(device, store: store)
        return 0
    }

    /// Boots `device` in the state file; shared with `xcodebuild test`, which boots its destination.
    static func boot(_ device: HostInventory.Device, store: SimulatorStateStore, failIfBooted: Bool = true) throws {
        guard device.isAvailable, device.runtime != nil else {
            throw SimctlFailure.simError(
                code: 401, "Unable to boot device because we cannot determine the runtime bundle.")
        }
        try store.update { records in
            let current = records[device.udid]?.state ?? device.state
            if current == SimulatorState.booted {
                if failIfBooted {
                    throw SimctlFailure.simError(code: 405, "Unable to boot device in current state: Booted")
                }
                return
            }
            var record = records[device.udid] ?? .init(state: current, lastBootedAt: device.lastBootedAt)
            record.state = SimulatorState.booted
            record.lastBootedAt = Self.isoNow()
            if record.installedApps == nil, !device.installedApps.isEmpty {
                record.installedApps = device.installedApps
            }
            records[device.udid] = record
        }
    }

    private func bootStatus(_ arguments: [String], config: EmulatedHostConfig, store: SimulatorStateStore) throws
        -> Int32
    {
        guard let name = arguments.first(where: { !$0.hasPrefix("-") }) else {
            throw SimctlFailure.usage("Usage: simctl bootstatus <device> [-bcd]")
        }
        let bootIfNeeded = arguments.contains { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.contains("b") }
        let device = try resolve(name, in: inventory(config, store))
        context.stdout.line("Monitoring boot status for \(device.name) (\(device.udid)).")
        if let seconds = config.faultSettings.simulatorBootSeconds, seconds > 0, device.isBooted || bootIfNeeded {
            // A slow boot: the device is ready only `seconds` after it was booted (by `simctl boot` or here).
            if config.faultSettings.simulatorBootFailure == true, !device.isBooted { throw SimctlFailure.bootFailure }
            try Self.boot(device, store: store, failIfBooted: false)
            let bootedAt = store.read()[device.udid]?.lastBootedAt.flatMap { ISO8601DateFormatter().date(from: $0) }
            let remaining = seconds - Date().timeIntervalSince(bootedAt ?? Date())
            if remaining > 0 { Thread.sleep(forTimeInterval: remaining) }
            context.stdout.line("Device booted.")
            return 0
        }
        if device.isBooted {
            context.stdout.line("Device already booted, nothing to do.")
            return 0
        }
        if bootIfNeeded {
            if config.faultSettings.simulatorBootFailure == true { throw SimctlFailure.bootFailure }
            try Self.boot(device, store: store, failIfBooted: false)
        } else {
            // Like the real command, wait until someone else boots the device.
            while store.read()[device.udid]?.state != SimulatorState.booted {
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        context.stdout.line("Device booted.")
        return 0
    }

    private func shutdown(_ arguments: [String], config: EmulatedHostConfig, store: SimulatorStateStore) throws
        -> Int32
    {
        guard let name = arguments.first else { throw SimctlFailure.usage("Usage: simctl shutdown <device> | all") }
        let inventory = inventory(config, store)
        let targets = name == "all" ? inventory.devices.filter(\.isBooted) : [try resolve(name, in: inventory)]
        try store.update { records in
            for device in targets {
                let current = records[device.udid]?.state ?? device.state
                if current == SimulatorState.shutdown {
                    if name == "all" { continue }
                    throw SimctlFailure.simError(code: 405, "Unable to shutdown device in current state: Shutdown")
                }
                var record = records[device.udid] ?? .init(state: current, lastBootedAt: device.lastBootedAt)
                record.state = SimulatorState.shutdown
                records[device.udid] = record
            }
        }
        return 0
    }

    // MARK: create, delete

    /// `simctl create <name> <device type id|name> [<runtime id>]`: prints the new device's UDID.
    private func create(_ arguments: [String], config: EmulatedHostConfig, store: SimulatorStateStore) throws
        -> Int32
    {
        guard arguments.count == 2 || arguments.count == 3 else {
            throw SimctlFailure.usage("Usage: simctl create <name> <device type id> [<runtime id>]")
        }
        let inventory = inventory(config, store)
        guard
            let deviceType = inventory.deviceTypes.first(where: {
                $0.identifier == arguments[1] || $0.name == arguments[1]
            })
        else { throw SimctlFailure(message: "Invalid device type: \(arguments[1])", exitCode: 148) }
        let runtime: EmulatedHostConfig.Runtime?
        if arguments.count == 3 {
            runtime = inventory.runtimes.first { $0.identifier == arguments[2] || $0.name == arguments[2] }
        } else {
            runtime = inventory.runtimes.last { $0.isAvailable != false }
        }
        guard let runtime, runtime.isAvailable != false else {
            throw SimctlFailure(message: "Invalid runtime: \(arguments.count == 3 ? arguments[2] : "")", exitCode: 148)
        }
        let udid = UUID().uuidString
        try store.update { records in
            records[udid] = .init(
                state: SimulatorState.shutdown, lastBootedAt: nil, installedApps: nil,
                created: .init(name: arguments[0], deviceType: deviceType.identifier, runtime: runtime.identifier))
        }
        context.stdout.line(udid)
        return 0
    }

    /// `simctl delete <device>…`: removes created devices and hides the config's.
    private func delete(_ arguments: [String], config: EmulatedHostConfig, store: SimulatorStateStore) throws
        -> Int32
    {
        guard !arguments.isEmpty else { throw SimctlFailure.usage("Usage: simctl delete <device> [... <device>]") }
        let inventory = inventory(config, store)
        let devices = try arguments.map { try resolve($0, in: inventory) }
        try store.update { records in
            for device in devices {
                if records[device.udid]?.created != nil {
                    records[device.udid] = nil
                } else {
                    var record = records[device.udid] ?? .init(state: device.state, lastBootedAt: device.lastBootedAt)
                    record.deleted = true
                    records[device.udid] = record
                }
            }
        }
        return 0
    }

    // MARK: install, launch

    private func install(_ arguments: [String], config: EmulatedHostConfig, store: SimulatorStateStore) throws
        -> Int32
    {
        guard arguments.count >= 2 else { throw SimctlFailure.usage("Usage: simctl install <device> <path>") }
        let device = try resolve(arguments[0], in: inventory(config, store))
        guard device.isBooted else {
            throw SimctlFailure.simError(code: 405, "Unable to lookup in current state: \(device.state)")
        }
        let appPath = context.absolutePath(arguments[1])
        let plist = URL(fileURLWithPath: appPath).appendingPathComponent("Info.plist")
        guard let data = try? Data(contentsOf: plist) else {
            throw SimctlFailure(
                message: """
                    An error was encountered processing the command (domain=NSPOSIXErrorDomain, code=2):
                    Failed to install the requested application
                    An application bundle was not found at the provided path.
                    Provide a valid path to the desired application bundle.
                    """, exitCode: 2)
        }
        let info = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        guard let bundleID = info?["CFBundleIdentifier"] as? String, !bundleID.isEmpty else {
            throw SimctlFailure(
                message: """
                    An error was encountered processing the command (domain=IXErrorDomain, code=13):
                    Failed to install the requested application
                    The application's Info.plist does not contain a valid CFBundleIdentifier.
                    """, exitCode: 13)
        }
        try store.update { records in
            var record = records[device.udid] ?? .init(state: device.state, lastBootedAt: device.lastBootedAt)
            var apps = record.installedApps ?? device.installedApps
            apps[bundleID] = appPath
            record.installedApps = apps
            records[device.udid] = record
        }
        return 0
    }

    private func launch(_ arguments: [String], config: EmulatedHostConfig, store: SimulatorStateStore) throws
        -> Int32
    {
        let words = arguments.filter { !$0.hasPrefix("-") }
        guard words.count >= 2 else {
            throw SimctlFailure.usage("Usage: simctl launch [-w | --wait-for-debugger] <device> <bundle identifier>")
        }
        let device = try resolve(words[0], in: inventory(config, store))
        let bundleID = words[1]
        guard device.isBooted else {
            throw SimctlFailure.simError(code: 405, "Unable to lookup in current state: \(device.state)")
        }
        guard device.installedApps[bundleID] != nil else {
            let reason = "Application info provider (FBSApplicationLibrary) returned nil for \"\(bundleID)\""
            throw SimctlFailure(
                message: """
                    An error was encountered processing the command (domain=FBSOpenApplicationServiceErrorDomain, code=4):
                    The request to open "\(bundleID)" failed.
                    Underlying error (domain=FBSOpenApplicationErrorDomain, code=4):
                    \tThe operation couldn’t be completed. \(reason)
                    \t\(reason)
                    """, exitCode: 4)
        }
        context.stdout.line("\(bundleID): \(Int.random(in: 20_000...89_999))")
        return 0
    }

    // MARK: Helpers

    /// A device argument: a UDID, `booted` (the first booted device), or a device name.
    private func resolve(_ argument: String, in inventory: HostInventory) throws -> HostInventory.Device {
        if argument == "booted" {
            if let device = inventory.devices.first(where: \.isBooted) { return device }
            throw SimctlFailure.simError(code: 405, "No devices are booted.")
        }
        if let device = inventory.device(udid: argument) { return device }
        if let device = inventory.devices.first(where: { $0.name == argument && $0.isAvailable }) { return device }
        throw SimctlFailure(message: "Invalid device: \(argument)", exitCode: 148)
    }

    static func isoNow() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }
}

/// A `simctl` failure: the message printed on stderr and the exit status.
struct SimctlFailure: Error {
    let message: String
    let exitCode: Int32

    /// CoreSimulator's wording: the domain and code line, then the reason; the process exits with the code's low byte.
    static func simError(code: Int32, _ reason: String) -> SimctlFailure {
        SimctlFailure(
            message: "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, "
                + "code=\(code)):\n\(reason)",
            exitCode: code & 0xff)
    }

    /// The fault `simulatorBootFailure`: launchd_sim never answers, as CoreSimulator reports it (exit 60).
    static let bootFailure = SimctlFailure(
        message: """
            An error was encountered processing the command (domain=NSPOSIXErrorDomain, code=60):
            Unable to boot the Simulator.
            launchd failed to respond.
            Underlying error (domain=com.apple.SimLaunchHostService.RequestError, code=4):
            \tFailed to start launchd_sim: could not bind to session, launchd_sim may have crashed or quit responding
            """, exitCode: 60)

    static func usage(_ text: String) -> SimctlFailure {
        SimctlFailure(message: text, exitCode: 64)
    }
}

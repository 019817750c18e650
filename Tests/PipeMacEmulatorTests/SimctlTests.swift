import Foundation
import PipeMacEmulator
import XCTest

final class SimctlTests: XCTestCase {
    private var host: EmulatorHarness!

    override func setUpWithError() throws {
        host = try EmulatorHarness()
    }

    func testListDevicesAvailableJSONKeepsRuntimeKeysAndDropsUnavailableDevices() throws {
        let outcome = host.run("xcrun", ["simctl", "list", "devices", "available", "-j"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let devices = try XCTUnwrap(EmulatorHarness.json(outcome.stdout)["devices"] as? [String: [[String: Any]]])
        XCTAssertEqual(
            Set(devices.keys),
            [
                "com.apple.CoreSimulator.SimRuntime.iOS-17-5", "com.apple.CoreSimulator.SimRuntime.iOS-18-2",
                "com.apple.CoreSimulator.SimRuntime.iOS-16-4",
            ])
        // The runtime whose only device is unavailable stays, with an empty array printed Apple's way (1.9).
        XCTAssertEqual(devices["com.apple.CoreSimulator.SimRuntime.iOS-16-4"]?.count, 0)
        XCTAssertTrue(outcome.stdout.contains("\"com.apple.CoreSimulator.SimRuntime.iOS-16-4\" : [\n\n    ]"))
        let iOS17 = try XCTUnwrap(devices["com.apple.CoreSimulator.SimRuntime.iOS-17-5"])
        let iPhone15 = try XCTUnwrap(iOS17.first { $0["udid"] as? String == EmulatorHarness.iPhone15OnIOS17 })
        XCTAssertEqual(iPhone15["name"] as? String, "iPhone 15")
        XCTAssertEqual(iPhone15["isAvailable"] as? Bool, true)
        XCTAssertEqual(iPhone15["state"] as? String, "Shutdown")
        XCTAssertEqual(iPhone15["deviceTypeIdentifier"] as? String, "com.apple.CoreSimulator.SimDeviceType.iPhone-15")
        XCTAssertNil(iPhone15["availabilityError"], "availabilityError appears only on unavailable devices")
        XCTAssertEqual(
            iPhone15["dataPath"] as? String,
            "\(host.home.path)/Library/Developer/CoreSimulator/Devices/\(EmulatorHarness.iPhone15OnIOS17)/data")
        // Apple's pretty printer: two-space indent, a space on both sides of the colon.
        XCTAssertTrue(
            outcome.stdout.hasPrefix(
                "{\n  \"devices\" : {\n    \"com.apple.CoreSimulator.SimRuntime.iOS-17-5\" : [\n      {\n"))
        XCTAssertTrue(outcome.stdout.contains("        \"udid\" : \"\(EmulatorHarness.iPhone15OnIOS17)\",\n"))
    }

    func testListDevicesJSONShowsUnavailableDeviceWithItsError() throws {
        let outcome = host.run("xcrun", ["simctl", "list", "devices", "-j"])
        let devices = try XCTUnwrap(EmulatorHarness.json(outcome.stdout)["devices"] as? [String: [[String: Any]]])
        let gone = try XCTUnwrap(devices["com.apple.CoreSimulator.SimRuntime.iOS-16-4"]?.first)
        XCTAssertEqual(gone["udid"] as? String, EmulatorHarness.unavailableIPhone14)
        XCTAssertEqual(gone["isAvailable"] as? Bool, false)
        XCTAssertEqual(gone["availabilityError"] as? String, "runtime profile not found using \"System\" match policy")
        XCTAssertTrue(outcome.stdout.contains(#""dataPath" : "\/"#), "simctl escapes slashes by default")
    }

    func testFullListJSONHasTheFourSectionsInAppleOrder() throws {
        let outcome = host.run("xcrun", ["simctl", "list", "-j"])
        XCTAssertEqual(outcome.status, 0)
        let top = outcome.stdoutLines.filter { $0.hasPrefix("  \"") }.map { $0.split(separator: "\"")[1] }
        XCTAssertEqual(top, ["devicetypes", "runtimes", "devices", "pairs"])
        XCTAssertTrue(outcome.stdout.hasSuffix("  \"pairs\" : {\n\n  }\n}\n"))
        let object = EmulatorHarness.json(outcome.stdout)
        let types = try XCTUnwrap(object["devicetypes"] as? [[String: Any]])
        let iPhone15 = try XCTUnwrap(types.first { $0["name"] as? String == "iPhone 15" })
        XCTAssertEqual(iPhone15["productFamily"] as? String, "iPhone")
        XCTAssertEqual(iPhone15["minRuntimeVersion"] as? Int, 17 << 16)
    }

    func testListRuntimesJSON() throws {
        let outcome = host.run("xcrun", ["simctl", "list", "runtimes", "-j"])
        let runtimes = try XCTUnwrap(EmulatorHarness.json(outcome.stdout)["runtimes"] as? [[String: Any]])
        XCTAssertEqual(
            runtimes.map { $0["identifier"] as? String },
            [
                "com.apple.CoreSimulator.SimRuntime.iOS-17-5", "com.apple.CoreSimulator.SimRuntime.iOS-18-2",
            ])
        XCTAssertEqual(runtimes[1]["version"] as? String, "18.2")
        XCTAssertEqual(runtimes[1]["buildversion"] as? String, "22C150")
        XCTAssertEqual(runtimes[1]["platform"] as? String, "iOS")
        XCTAssertEqual(runtimes[1]["isAvailable"] as? Bool, true)
        let supported = try XCTUnwrap(runtimes[0]["supportedDeviceTypes"] as? [[String: Any]])
        let names = supported.compactMap { $0["name"] as? String }
        XCTAssertTrue(names.contains("iPhone 15"))
        XCTAssertFalse(names.contains("iPhone 16"), "iPhone 16 needs iOS 18")
    }

    func testTextListHasTrailingSpacesAndAnUnavailableSection() {
        let outcome = host.run("simctl", ["list", "devices"])
        XCTAssertEqual(outcome.status, 0)
        let lines = outcome.stdoutLines
        XCTAssertEqual(lines.first, "== Devices ==")
        XCTAssertTrue(lines.contains("-- iOS 17.5 --"))
        XCTAssertTrue(lines.contains("    iPhone 15 (\(EmulatorHarness.iPhone15OnIOS17)) (Shutdown) "))
        XCTAssertTrue(lines.contains("-- Unavailable: com.apple.CoreSimulator.SimRuntime.iOS-16-4 --"))
        XCTAssertTrue(
            lines.contains(
                "    iPhone 14 (\(EmulatorHarness.unavailableIPhone14)) (Shutdown) (unavailable, runtime profile not "
                    + "found using \"System\" match policy) "))

        let available = host.run("xcrun", ["simctl", "list", "devices", "available"])
        XCTAssertFalse(available.stdout.contains("Unavailable"))
        XCTAssertFalse(available.stdout.contains(EmulatorHarness.unavailableIPhone14))
        XCTAssertTrue(
            available.stdout.contains("-- iOS 18.2 --\n    iPhone 16 (\(EmulatorHarness.iPhone16)) (Shutdown) \n"))
    }

    func testBootPersistsAcrossInvocationsAndRefusesASecondBoot() throws {
        XCTAssertEqual(host.run("xcrun", ["simctl", "boot", EmulatorHarness.iPhone16]).status, 0)
        let listed = host.run("xcrun", ["simctl", "list", "devices", "booted", "-j"])
        let devices = try XCTUnwrap(EmulatorHarness.json(listed.stdout)["devices"] as? [String: [[String: Any]]])
        let booted = devices.values.flatMap { $0 }
        XCTAssertEqual(booted.map { $0["udid"] as? String }, [EmulatorHarness.iPhone16])
        XCTAssertEqual(booted.first?["state"] as? String, "Booted")
        XCTAssertNotNil(booted.first?["lastBootedAt"], "a booted device has a last boot time")

        let again = host.run("xcrun", ["simctl", "boot", EmulatorHarness.iPhone16])
        XCTAssertEqual(again.status, 149)
        XCTAssertEqual(
            again.stderr,
            "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):\n"
                + "Unable to boot device in current state: Booted\n")

        XCTAssertEqual(host.run("xcrun", ["simctl", "shutdown", EmulatorHarness.iPhone16]).status, 0)
        XCTAssertTrue(
            host.run("xcrun", ["simctl", "list", "devices"]).stdout.contains(
                "iPhone 16 (\(EmulatorHarness.iPhone16)) (Shutdown) "))
        XCTAssertEqual(host.run("xcrun", ["simctl", "shutdown", EmulatorHarness.iPhone16]).status, 149)
    }

    func testUnknownAndUnavailableDevicesAreRefused() {
        let unknown = host.run("xcrun", ["simctl", "boot", "00000000-0000-0000-0000-000000000000"])
        XCTAssertEqual(unknown.status, 148)
        XCTAssertEqual(unknown.stderr, "Invalid device: 00000000-0000-0000-0000-000000000000\n")

        let unavailable = host.run("xcrun", ["simctl", "boot", EmulatorHarness.unavailableIPhone14])
        XCTAssertEqual(unavailable.status, 145)
        XCTAssertTrue(
            unavailable.stderr.contains("Unable to boot device because we cannot determine the runtime bundle."))
    }

    func testBootstatusBootsWithB() {
        let outcome = host.run("xcrun", ["simctl", "bootstatus", EmulatorHarness.iPhone15OnIOS17, "-b"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(
            outcome.stdout.hasPrefix("Monitoring boot status for iPhone 15 (\(EmulatorHarness.iPhone15OnIOS17)).\n"))
        let second = host.run("xcrun", ["simctl", "bootstatus", EmulatorHarness.iPhone15OnIOS17, "-b"])
        XCTAssertTrue(second.stdout.hasSuffix("Device already booted, nothing to do.\n"))
    }

    func testTheBootFaultFailsBootAndBootstatusLikeCoreSimulator() throws {
        try host.changeConfig { $0["faults"] = ["simulatorBootFailure": true] }
        let boot = host.run("xcrun", ["simctl", "boot", EmulatorHarness.iPhone16])
        XCTAssertEqual(boot.status, 60)
        XCTAssertTrue(
            boot.stderr.hasPrefix(
                "An error was encountered processing the command (domain=NSPOSIXErrorDomain, code=60):\n"
                    + "Unable to boot the Simulator.\n"), boot.stderr)
        XCTAssertEqual(host.run("xcrun", ["simctl", "bootstatus", EmulatorHarness.iPhone16, "-b"]).status, 60)
        XCTAssertFalse(host.run("xcrun", ["simctl", "list", "devices", "booted"]).stdout.contains("iPhone 16"))
    }

    func testCreateAddsADeviceAndDeleteRemovesIt() throws {
        let created = host.run(
            "xcrun",
            [
                "simctl", "create", "Pipe iPhone 15 Plus", "com.apple.CoreSimulator.SimDeviceType.iPhone-15-Plus",
                "com.apple.CoreSimulator.SimRuntime.iOS-17-5",
            ])
        XCTAssertEqual(created.status, 0, created.stderr)
        let udid = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertNotNil(UUID(uuidString: udid), udid)
        let listed = host.run("xcrun", ["simctl", "list", "devices", "available", "-j"])
        let devices = try XCTUnwrap(EmulatorHarness.json(listed.stdout)["devices"] as? [String: [[String: Any]]])
        let device = try XCTUnwrap(
            devices["com.apple.CoreSimulator.SimRuntime.iOS-17-5"]?.first { $0["udid"] as? String == udid })
        XCTAssertEqual(device["name"] as? String, "Pipe iPhone 15 Plus")
        XCTAssertEqual(device["state"] as? String, "Shutdown")
        XCTAssertEqual(host.run("xcrun", ["simctl", "boot", udid]).status, 0, "a created device boots")

        XCTAssertEqual(host.run("xcrun", ["simctl", "delete", udid]).status, 0)
        XCTAssertFalse(host.run("xcrun", ["simctl", "list", "devices"]).stdout.contains(udid))
        let again = host.run("xcrun", ["simctl", "delete", udid])
        XCTAssertEqual(again.status, 148)
        XCTAssertEqual(again.stderr, "Invalid device: \(udid)\n")
    }

    func testCreateRefusesAnUnknownDeviceTypeOrRuntime() {
        let type = host.run(
            "xcrun", ["simctl", "create", "x", "iPhone 99", "com.apple.CoreSimulator.SimRuntime.iOS-17-5"])
        XCTAssertEqual(type.status, 148)
        XCTAssertEqual(type.stderr, "Invalid device type: iPhone 99\n")
        let runtime = host.run(
            "xcrun", ["simctl", "create", "x", "iPhone 15", "com.apple.CoreSimulator.SimRuntime.iOS-9-0"])
        XCTAssertEqual(runtime.status, 148)
        XCTAssertEqual(runtime.stderr, "Invalid runtime: com.apple.CoreSimulator.SimRuntime.iOS-9-0\n")
    }

    func testInstallThenLaunchPrintsBundleIDAndPID() throws {
        let app = host.folder.appendingPathComponent("Reader.app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        let info = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleIdentifier": "com.example.reader"], format: .xml, options: 0)
        try info.write(to: app.appendingPathComponent("Info.plist"))

        let notBooted = host.run("xcrun", ["simctl", "install", EmulatorHarness.iPhone16, app.path])
        XCTAssertEqual(notBooted.status, 149)
        XCTAssertTrue(notBooted.stderr.hasSuffix("Unable to lookup in current state: Shutdown\n"))

        XCTAssertEqual(host.run("xcrun", ["simctl", "boot", EmulatorHarness.iPhone16]).status, 0)
        let notInstalled = host.run("xcrun", ["simctl", "launch", EmulatorHarness.iPhone16, "com.example.reader"])
        XCTAssertEqual(notInstalled.status, 4)
        XCTAssertTrue(notInstalled.stderr.contains("The request to open \"com.example.reader\" failed."))

        XCTAssertEqual(host.run("xcrun", ["simctl", "install", "booted", app.path]).status, 0)
        let launched = host.run("xcrun", ["simctl", "launch", EmulatorHarness.iPhone16, "com.example.reader"])
        XCTAssertEqual(launched.status, 0, launched.stderr)
        XCTAssertNotNil(
            launched.stdout.range(of: #"^com\.example\.reader: [0-9]+\n$"#, options: .regularExpression),
            launched.stdout)

        let missing = host.run("xcrun", ["simctl", "install", EmulatorHarness.iPhone16, "/no/such/Thing.app"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("An application bundle was not found at the provided path."))
    }

    func testConfigProblemsAreListedTogetherWithSuggestions() throws {
        try host.changeConfig { config in
            config["sharedScheme"] = ["Reader"]
            var simulators = config["simulators"] as! [[String: Any]]
            simulators[0]["udid"] = "not-a-uuid"
            config["simulators"] = simulators
        }
        let outcome = host.run("xcrun", ["simctl", "list", "-j"])
        XCTAssertEqual(outcome.status, 78)
        XCTAssertTrue(
            outcome.stderr.contains("unknown key 'sharedScheme' (did you mean 'sharedSchemes'?)"), outcome.stderr)
        XCTAssertTrue(
            outcome.stderr.contains("simulators[0].udid 'not-a-uuid' is not an uppercase UUID"), outcome.stderr)
        XCTAssertEqual(outcome.stdout, "")
    }

    func testMissingConfigVariableIsExplained() {
        let stdout = EmulatorOutput.memory()
        let stderr = EmulatorOutput.memory()
        let status = Emulator.run(
            arguments: ["xcrun", "simctl", "list"], environment: [:], stdout: stdout, stderr: stderr)
        XCTAssertEqual(status, 78)
        XCTAssertTrue(stderr.text.contains("PIPE_EMULATOR_CONFIG is not set"), stderr.text)
        XCTAssertEqual(stdout.text, "")
    }

    func testUnknownXcrunToolUsesXcrunsWording() {
        let outcome = host.run("xcrun", ["swiftlint"])
        XCTAssertEqual(outcome.status, 72)
        XCTAssertEqual(
            outcome.stderr, "xcrun: error: unable to find utility \"swiftlint\", not a developer tool or in PATH\n")
    }
}

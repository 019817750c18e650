import Foundation
import PipeCore
import XCTest

@testable import PipeApple

/// The texts are CoreSimulator's, as the emulator prints them (`Sources/PipeMacEmulator/Simulators/Simctl.swift`).
final class SimulatorBootTests: XCTestCase {
    private let udid = "A1B2C3D4-0000-4000-8000-000000000001"

    private func output(_ exit: RemoteExit, stdout: String = "", stderr: String = "") -> CapturedOutput {
        CapturedOutput(stdout: Data(stdout.utf8), stderr: Data(stderr.utf8), exit: exit)
    }

    func testCommandsNameTheDeviceQuoted() {
        XCTAssertEqual(SimulatorBoot.bootCommand(udid: udid), "xcrun simctl boot \(udid)")
        XCTAssertEqual(SimulatorBoot.bootStatusCommand(udid: udid), "xcrun simctl bootstatus \(udid) -b")
        XCTAssertEqual(SimulatorBoot.bootCommand(udid: "a b"), "xcrun simctl boot 'a b'")
    }

    func testBootThatExitsZeroBooted() {
        XCTAssertEqual(SimulatorBoot.readBoot(output(.exited(0))), .booted)
    }

    func testAlreadyBootedIsNotAFailure() {
        let stderr = """
            An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):
            Unable to boot device in current state: Booted
            """
        XCTAssertEqual(SimulatorBoot.readBoot(output(.exited(149), stderr: stderr)), .alreadyBooted)
    }

    func testOther405IsAFailure() {
        let stderr = """
            An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):
            Unable to boot device in current state: Shutting Down
            """
        guard case .failed(let said) = SimulatorBoot.readBoot(output(.exited(149), stderr: stderr)) else {
            return XCTFail("a device shutting down is not booted")
        }
        XCTAssertTrue(said.hasPrefix("exit 149: "), said)
        XCTAssertTrue(said.contains("current state: Shutting Down"), said)
    }

    func testLaunchdFailureIsAFailureWithWhatTheToolSaid() {
        let stderr = """
            An error was encountered processing the command (domain=NSPOSIXErrorDomain, code=60):
            Unable to boot the Simulator.
            launchd failed to respond.
            Underlying error (domain=com.apple.SimLaunchHostService.RequestError, code=4):
            \tFailed to start launchd_sim: could not bind to session, launchd_sim may have crashed or quit responding
            """
        for read in [SimulatorBoot.readBoot, SimulatorBoot.readBootStatus] {
            guard case .failed(let said) = read(output(.exited(60), stderr: stderr)) else {
                return XCTFail("exit 60 is a failed boot")
            }
            XCTAssertTrue(said.hasPrefix("exit 60: An error was encountered"), said)
            XCTAssertTrue(said.contains("Unable to boot the Simulator. / launchd failed to respond."), said)
        }
    }

    func testBootStatusBootedOnlyOnExitZero() {
        let stdout = "Monitoring boot status for iPhone 15 (\(udid)).\nDevice booted.\n"
        XCTAssertEqual(SimulatorBoot.readBootStatus(output(.exited(0), stdout: stdout)), .booted)
        XCTAssertEqual(SimulatorBoot.readBootStatus(output(.timedOut, stdout: stdout)), .timedOut)
        XCTAssertEqual(SimulatorBoot.readBootStatus(output(.lost("EOF"))), .failed("exit lost"))
    }
}

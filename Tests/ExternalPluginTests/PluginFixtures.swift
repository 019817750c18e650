import ExternalPlugin
import Foundation
import PipeCore
import PipeSSH
import PipeTestSupport
import XCTest

/// A project folder with external plugins copied from `Fixtures/` into its `Plugins/`, and a layer context to run
/// them with against a real (emulated) Mac host over SSH.
final class PluginProject {
    let folder: TemporaryDirectory
    var url: URL { folder.url }
    let runID = "20261129-140312-7f3a"

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    init() throws {
        folder = try TemporaryDirectory(prefix: "pipe-ext")
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("Plugins"), withIntermediateDirectories: true)
    }

    deinit { folder.remove() }

    /// Copies `Fixtures/<fixture>` (or any file) to `Plugins/pipe-layer-<kind>`, keeping it executable.
    func install(_ fixture: String, as kind: String) throws {
        try install(Self.fixtures.appendingPathComponent(fixture), as: kind)
    }

    func install(_ file: URL, as kind: String) throws {
        let destination = url.appendingPathComponent("Plugins/pipe-layer-\(kind)")
        try FileManager.default.copyItem(at: file, to: destination)
        XCTAssertEqual(chmod(destination.path, 0o755), 0)
    }

    /// The layer's artifacts folder, created as the engine creates it.
    func artifacts(_ layer: String) throws -> URL {
        let folder = url.appendingPathComponent("artifacts/\(runID)/\(layer)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    func context(
        kind: String, layer: String = "lint", settings: [String: SettingValue] = [:], timeout: Double? = nil,
        host: RemoteHost, remoteWorkspace: String = "/nonexistent/workspace", events: EventSink,
        cancellation: CancellationToken = CancellationToken(), shellParameters: [String: String] = [:]
    ) throws -> LayerContext {
        LayerContext(
            runID: runID, pipelineName: "app-intents",
            layer: LayerSpec(
                name: layer, plugin: kind, gate: .merge, timeoutSeconds: timeout, settings: settings,
                shellParameters: shellParameters),
            attempt: 1, host: host, hostName: "mac-1",
            simulator: Simulator(
                udid: "90052AC6-D47D-4B2A-840D-6B5B081260C6", name: "iPhone 15",
                runtimeIdentifier: "com.apple.CoreSimulator.SimRuntime.iOS-17-5", runtimeName: "iOS 17.5",
                platform: "iOS", runtimeVersion: "17.5", state: "Shutdown"),
            remoteRunFolder: (remoteWorkspace as NSString).deletingLastPathComponent,
            remoteWorkspace: remoteWorkspace, localArtifacts: try artifacts(layer), projectDirectory: url,
            runStartTime: Date(), events: events, cancellation: cancellation)
    }
}

/// A test class whose tests share one emulated Mac host (`shared`), started once for the class.
class SharedHostTestCase: XCTestCase {
    static var shared: SharedHost?

    override class func setUp() {
        super.setUp()
        do {
            shared = try SharedHost()
        } catch {
            XCTFail("could not start the emulated Mac host: \(error)")
        }
    }

    override class func tearDown() {
        shared?.stop()
        shared = nil
        super.tearDown()
    }
}

/// One emulated Mac host for a test class, with an SSH session to it.
final class SharedHost {
    let state: TemporaryDirectory
    let host: EmulatedMacHost
    let remote: SSHRemoteHost

    init() throws {
        state = try TemporaryDirectory(prefix: "pipe-ext-host")
        host = try EmulatedMacHost(name: "mac-1", stateDirectory: state.url)
        remote = try SSHRemoteHost(
            connectingTo: HostConfig(
                name: host.name, address: "127.0.0.1", port: host.port, user: host.user,
                identityFile: host.identityFile.path, knownHostsFile: host.knownHostsFile.path))
    }

    /// A fresh folder on the host, as an absolute path.
    func makeFolder(_ name: String) throws -> String {
        let output = try remote.capture("mkdir -p \(name) && cd \(name) && pwd", timeoutSeconds: 30)
        return output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        remote.session.disconnect()
        host.stop()
        state.remove()
    }
}

extension LayerResult {
    var evidenceText: String { evidence.joined(separator: "\n") }
}

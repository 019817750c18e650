import Foundation

/// What one invocation of an emulated tool sees: its environment, working folder, outputs and (in the real
/// binary only) the interrupt monitor.
struct EmulatorContext {
    let environment: [String: String]
    let currentDirectory: URL
    let stdout: EmulatorOutput
    let stderr: EmulatorOutput
    /// Set only when running as the `pipe-mac-emulator` process: tests calling `Emulator.run` in-process must
    /// not install signal handlers or kill the test runner.
    let interrupts: InterruptMonitor?

    /// Resolves a path argument the way the real tools do: relative to the working folder, `~` to HOME.
    func absolutePath(_ path: String) -> String {
        var expanded = path
        if expanded == "~" || expanded.hasPrefix("~/") {
            expanded = (environment["HOME"] ?? NSHomeDirectory()) + expanded.dropFirst()
        }
        if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded).standardized.path }
        return currentDirectory.appendingPathComponent(expanded).standardized.path
    }

    /// Loads the host config named by `PIPE_EMULATOR_CONFIG`, printing why it could not be used.
    /// The host config, with the Xcode that `DEVELOPER_DIR` selects (as `xcode-select` would) when it is set.
    func loadHost() -> (EmulatedHostConfig, URL)? {
        do {
            var (config, url) = try EmulatedHostConfig.load(environment: environment)
            if let developerDir = environment["DEVELOPER_DIR"], !developerDir.isEmpty {
                guard let selected = config.otherXcodes?[developerDir] else {
                    // xcrun's own wording for a DEVELOPER_DIR that holds no Xcode.
                    stderr.line(
                        "xcrun: error: invalid DEVELOPER_DIR path (\(developerDir)), missing xcrun at: "
                            + "\(developerDir)/usr/bin/xcrun")
                    return nil
                }
                config.xcode = selected
            }
            return (config, url)
        } catch {
            stderr.line("\(error)")
            return nil
        }
    }

    /// Exit status for an unusable host config (sysexits EX_CONFIG): never produced by a real Apple tool, so a
    /// misconfigured emulator is not mistaken for a verdict about the app.
    static let configurationExitCode: Int32 = 78
}

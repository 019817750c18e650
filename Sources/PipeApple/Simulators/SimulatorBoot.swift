import PipeBasics
import PipeCore

/// Booting a simulator before a layer uses it: `simctl boot`, then `simctl bootstatus -b` under a deadline.
///
/// `simctl boot` returns as soon as CoreSimulator accepted the request; the device is usable only when
/// `bootstatus` says "Device booted." (it waits for SpringBoard and the data migration), so Pipe runs both and
/// bounds the second with a deadline. A device that is already booted makes `boot` fail with SimError 405
/// ("Unable to boot device in current state: Booted", exit 149): that is the state asked for, not a failure.
public enum SimulatorBoot {
    /// What a boot step came to.
    public enum Result: Sendable, Equatable {
        /// The device is booted (or booting, after `simctl boot`).
        case booted
        /// `simctl boot` found it booted already.
        case alreadyBooted
        /// The step failed: what the tool said, in one line (up to six lines of its output).
        case failed(String)
        /// The deadline ran out first.
        case timedOut
    }

    /// The default deadline for `bootstatus -b`, in seconds: a cold first boot of a new runtime takes about a minute.
    public static let defaultTimeoutSeconds = 120

    /// `xcrun simctl boot <udid>`, quoted for a POSIX shell.
    public static func bootCommand(udid: String) -> String {
        ShellQuote.join(["xcrun", "simctl", "boot", udid])
    }

    /// `xcrun simctl bootstatus <udid> -b`: waits until the device has booted, booting it if needed.
    public static func bootStatusCommand(udid: String) -> String {
        ShellQuote.join(["xcrun", "simctl", "bootstatus", udid, "-b"])
    }

    /// Reads what `simctl boot` left.
    public static func readBoot(_ output: CapturedOutput) -> Result {
        if case .exited(0) = output.exit { return .booted }
        let said = output.stderrText + "\n" + output.stdoutText
        if case .exited(149) = output.exit, said.contains("current state: Booted") { return .alreadyBooted }
        return failure(output.exit, said: said)
    }

    /// Reads what `simctl bootstatus -b` left: booted only when it exited 0 (it prints "Device booted." or
    /// "Device already booted, nothing to do.").
    public static func readBootStatus(_ output: CapturedOutput) -> Result {
        if case .exited(0) = output.exit { return .booted }
        return failure(output.exit, said: output.stderrText + "\n" + output.stdoutText)
    }

    private static func failure(_ exit: RemoteExit, said: String) -> Result {
        if exit == .timedOut { return .timedOut }
        let lines = said.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let text = lines.prefix(6).joined(separator: " / ")
        return .failed("exit \(exit.artifactText)" + (text.isEmpty ? "" : ": \(text)"))
    }
}

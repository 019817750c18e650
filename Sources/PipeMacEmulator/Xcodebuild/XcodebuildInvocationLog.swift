import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A line per `xcodebuild` action run on the emulated host (`<UTC time> <arguments>`, each argument quoted as in
/// xcodebuild's "Command line invocation:" line, so a test sees where one argument ends), next to the host config:
/// for `…/host.json` the file is `…/host.xcodebuild.log`. It lets a test count what ran on the host (one
/// `build-for-testing` for two layers), the way one would read a Mac's shell history.
struct XcodebuildInvocationLog {
    let url: URL?

    /// - Parameter configPath: `$PIPE_EMULATOR_CONFIG`; without it nothing is logged.
    init(configPath: String?) {
        guard let configPath, !configPath.isEmpty else {
            url = nil
            return
        }
        let config = URL(fileURLWithPath: configPath)
        url = config.deletingLastPathComponent().appendingPathComponent(
            config.deletingPathExtension().lastPathComponent + ".xcodebuild.log")
    }

    /// Appends one line with one `write` on an `O_APPEND` descriptor, so concurrent invocations never interleave.
    func append(_ arguments: [String]) {
        guard let url else { return }
        let line =
            "\(ISO8601DateFormatter().string(from: Date())) "
            + XcodebuildTestAction.quoted(arguments).joined(separator: " ") + "\n"
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The logged lines, oldest first (empty when there is no log).
    func lines() -> [String] {
        guard let url, let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }
}

/// The exit code xcodebuild gives for what a log shows, for logs read without their exit code (`pipe report`
/// without `--exit-code`): the banner, or the `xcodebuild: error:` line of a request it refused
/// (`apple-formats.md` 4: 64 usage, 65 test or build failure and missing scheme, 66 no test action, 70 no
/// destination, 74 package resolution).
///
/// `nil` when the log shows neither: a run that ended without a verdict (killed, cut short), which includes a
/// `clean test` log with only `** CLEAN SUCCEEDED **`.
public struct XcodebuildAssumedExit: Equatable, Sendable {
    public var code: Int32
    /// What the code was taken from, for the evidence: the banner (`** TEST FAILED **`), or which error line.
    public var basis: String

    public static func from(_ facts: XcodebuildLogFacts) -> XcodebuildAssumedExit? {
        // A failure banner of any action decides; success only from the requested action's banner.
        if let banner = facts.failureBanner {
            return XcodebuildAssumedExit(code: 65, basis: "the `\(banner.line)` banner")
        }
        if let banner = facts.banners.items.last(where: { $0.result == .interrupted }) {
            return XcodebuildAssumedExit(code: 130, basis: "the `\(banner.line)` banner")
        }
        if let banner = facts.successBanner {
            return XcodebuildAssumedExit(code: 0, basis: "the `\(banner.line)` banner")
        }
        guard let error = facts.toolErrors.first else { return nil }
        let codes: [(text: String, code: Int32)] = [
            ("Existing file at -resultBundlePath", 64),
            ("is not currently configured for the test action", 66),
            ("' does not exist.", 66),
            ("Unable to find a destination matching", 70),
            ("Unable to find a device matching", 70),
            ("Timed out waiting for all destinations", 70),
            ("Could not resolve package dependencies", 74),
        ]
        let code = codes.first { error.contains($0.text) }?.code ?? 65
        // The error line itself is quoted in the evidence; the basis only points at it.
        let words = error.prefix { $0 != ":" }
        return XcodebuildAssumedExit(code: code, basis: "the `\(words): error:` line")
    }
}

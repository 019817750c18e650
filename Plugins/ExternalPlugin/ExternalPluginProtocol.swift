/// The constants of the external plugin protocol (`docs/plugins.md`, `docs/schema/plugin-protocol.schema.json`).
public enum ExternalPluginProtocol {
    /// The newest version this Pipe speaks. A plugin declares its own in its description; Pipe speaks that one to
    /// it (the request, `PIPE_PLUGIN_PROTOCOL`), and its messages and result must carry it.
    public static let version = 2
    /// Every version this Pipe speaks: 2 added the failed tests a test retry runs again (`layer.testsToRetry`) and
    /// a test's `target`.
    public static let supportedVersions = 1...2
    /// The first version whose request carries `layer.testsToRetry`.
    public static let testsToRetryVersion = 2
    /// `1 and 2`, for messages.
    public static var supportedText: String {
        supportedVersions.map(String.init).joined(separator: ", ").replacingLastSeparator()
    }
    /// An external plugin of kind `lint` is an executable named `pipe-layer-lint`.
    public static let executablePrefix = "pipe-layer-"
    /// The argument that asks a plugin for its description instead of running a layer.
    public static let describeArgument = "--describe"
    /// A layer without `timeout:` gives its plugin this long.
    public static let defaultTimeoutSeconds: Double = 600
    /// `--describe` must answer within this.
    public static let describeTimeoutSeconds: Double = 10

    /// The outcomes a plugin may report; Pipe decides `timed-out`, `cancelled` and `skipped` itself, and only
    /// sign-offs give `signed-off` or `rejected`.
    public static let reportableOutcomes: [String] = [
        "passed", "flaky", "tests-failed", "build-failed", "host-config", "infrastructure", "plugin-error",
        "awaiting-signoff",
    ]

    /// Whether `kind` may name an external plugin: lowercase letters, digits and `-`, starting with a letter or
    /// digit (so it is a safe file name and never a path).
    public static func isValidKind(_ kind: String) -> Bool {
        guard let first = kind.unicodeScalars.first, first.isLowerAlphanumeric else { return false }
        return kind.unicodeScalars.allSatisfy { $0.isLowerAlphanumeric || $0 == "-" }
    }
}

extension Unicode.Scalar {
    fileprivate var isLowerAlphanumeric: Bool { ("a"..."z").contains(self) || ("0"..."9").contains(self) }
}

extension String {
    /// `1, 2, 3` → `1, 2 and 3`.
    fileprivate func replacingLastSeparator() -> String {
        guard let range = range(of: ", ", options: .backwards) else { return self }
        return replacingCharacters(in: range, with: " and ")
    }
}

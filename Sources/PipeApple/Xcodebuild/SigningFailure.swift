/// Code-signing and provisioning errors of `xcodebuild build|test|archive` (Xcode ≤ 9 `Code Sign error:`, Xcode 9–10
/// `Code Signing Error:`, Xcode 11+ `…: error: … (in target 'T' from project 'P')`; `apple-formats.md` Part 2 §7).
/// Each is the configuration of the project's signing settings or of the host's keychain and profiles, as a scheme
/// that is not shared is: `host-config`, never a failing app.
public enum SigningFailure {
    /// A text, and what to fix when a line holds it; the first match wins.
    public static let texts: [(text: String, fix: String)] = [
        (
            "requires a development team",
            "set a development team (DEVELOPMENT_TEAM) in the target's Signing & Capabilities, or pass "
                + "DEVELOPMENT_TEAM=<team id>; simulator tests can build with CODE_SIGNING_ALLOWED=NO"
        ),
        (
            "doesn't include signing certificate",
            "the provisioning profile does not include the certificate in the host's keychain: regenerate the "
                + "profile with that certificate, or install the certificate it names"
        ),
        (
            "No signing certificate",
            "import the signing certificate with its private key into the host's keychain (security import)"
        ),
        (
            "No code signing identit",
            "import a signing identity (certificate and private key) for the team into the host's keychain"
        ),
        (
            "No profiles for '",
            "install a provisioning profile for the bundle identifier on the host, or let Xcode make one "
                + "(automatic signing with -allowProvisioningUpdates)"
        ),
        ("No profile matching", "install the provisioning profile the target names on the host, or select another"),
        ("No profile for team", "install the provisioning profile the target names on the host, or select another"),
        (
            "Your build settings specify a provisioning profile with the UUID",
            "the provisioning profile the settings name is not installed on the host"
        ),
        ("requires a provisioning profile", "select a provisioning profile for the build configuration"),
        (
            "Provisioning profile \"",
            "regenerate the provisioning profile with the capabilities and entitlements the target uses"
        ),
        (
            "No account for team",
            "add an Apple ID account of the team in Xcode's Accounts settings on the host, or use manual signing"
        ),
        (
            "is not valid for code signing",
            "the signing certificate is revoked or expired: install a valid one in the host's keychain"
        ),
        (
            "errSecInternalComponent",
            "codesign could not use the keychain (locked, or no access to the key): unlock it with "
                + "security unlock-keychain before building"
        ),
        (
            "Code signing is required for product type",
            "the target needs signing: set a team and profile, or build for the simulator"
        ),
        ("Code Sign error:", "fix the target's code-signing settings or the host's keychain"),
        ("CodeSign error:", "fix the target's code-signing settings or the host's keychain"),
        ("Code Signing Error:", "fix the target's code-signing settings or the host's keychain"),
    ]

    static let needles: [[UInt8]] = texts.map { Array($0.text.utf8) }

    /// Whether a line that holds one of the texts is an error: `Provisioning profile "X"` alone may only name a
    /// profile, and `Code signing is required…` may be quoted by a warning.
    static func isError(_ line: String) -> Bool {
        guard let text = texts.first(where: { line.contains($0.text) })?.text else { return false }
        if text == "Provisioning profile \"" { return line.contains(" doesn't ") }
        return !line.contains("warning: ")
    }

    /// What to fix for a line that holds a signing error; `nil` for any other line.
    public static func fix(for line: String) -> String? {
        texts.first { line.contains($0.text) }?.fix
    }
}

import Foundation
import PipeBasics
import PipeCore

/// A signing layer's own keychain on the host: the `security -i` commands that make it, import the `.p12` and
/// let codesign use the key, and the ones that delete it. Every password is in these commands, which go to
/// `security -i` on stdin, never on a command line.
public struct TemporaryKeychain: Sendable, Equatable {
    /// The keychain's path on the host (`…/pipe-<run>.keychain`; macOS writes `…keychain-db`).
    public let path: String
    /// Random, made on the coordinator for this run alone.
    public let password: String

    public init(path: String, password: String = TemporaryKeychain.randomPassword()) {
        self.path = path
        self.password = password
    }

    /// 32 random bytes as hex.
    public static func randomPassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The commands that make the keychain and import the `.p12` at `p12Path` (already on the host); `security -i`
    /// reads them on stdin. A value `security -i` cannot quote (holding both quote characters or a line break) is
    /// refused.
    public func setUpCommands(p12Path: String, p12Password: String, lockAfterSeconds: Int = 21_600) throws -> String {
        let keychain = try Self.word(path)
        let password = try Self.word(password)
        return [
            "create-keychain -p \(password) \(keychain)",
            "set-keychain-settings -lut \(lockAfterSeconds) \(keychain)",
            "unlock-keychain -p \(password) \(keychain)",
            "import \(try Self.word(p12Path)) -k \(keychain) -P \(try Self.word(p12Password)) -T /usr/bin/codesign "
                + "-f pkcs12",
            "set-key-partition-list -S apple-tool:,apple: -s -k \(password) \(keychain)",
            "quit",
        ].joined(separator: "\n") + "\n"
    }

    /// Deletes the keychain (no password needed).
    public func tearDownCommands() throws -> String { "delete-keychain \(try Self.word(path))\nquit\n" }

    /// The flag that points codesign at this keychain alone, for xcodebuild's `OTHER_CODE_SIGN_FLAGS`. Xcode splits
    /// that list setting at blanks, honouring double quotes and backslashes, so the path is one quoted word even when
    /// it holds a space (a home folder's "Application Support", say).
    public var codeSignFlags: String { "--keychain \(Self.buildSettingWord(path))" }

    /// `value` as one word of an Xcode list build setting: in double quotes, with `\` and `"` escaped.
    static func buildSettingWord(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// One word for `security -i`, which groups a word in single or double quotes.
    static func word(_ value: String) throws -> String {
        if value.contains(where: \.isNewline) || value.unicodeScalars.contains("\u{0}") {
            throw RequestError("a signing value holds a line break or NUL, which security -i cannot read")
        }
        if !value.contains("'") { return "'\(value)'" }
        if !value.contains("\"") { return "\"\(value)\"" }
        throw RequestError("a signing value holds both ' and \", which security -i cannot quote; change it")
    }

    /// The folder the host's Xcode reads provisioning profiles from (apple-formats.md Part 2 §5c): Xcode 16 moved
    /// it; older Xcodes read `~/Library/MobileDevice/Provisioning Profiles`.
    public static func profilesFolder(xcodeMajorVersion: Int) -> String {
        xcodeMajorVersion >= 16
            ? "Library/Developer/Xcode/UserData/Provisioning Profiles" : "Library/MobileDevice/Provisioning Profiles"
    }
}

import Foundation

/// `NAME=value` build settings of an xcodebuild command line; a later one wins, as in Xcode.
struct CommandLineBuildSettings {
    let values: [String: String]
    /// In command-line order, for the "Build settings from command line:" block.
    let ordered: [(name: String, value: String)]

    init(_ settings: [String]) {
        var values: [String: String] = [:]
        var ordered: [(name: String, value: String)] = []
        for setting in settings {
            guard let equals = setting.firstIndex(of: "=") else { continue }
            let name = String(setting[..<equals])
            let value = String(setting[setting.index(after: equals)...])
            values[name] = value
            ordered.append((name, value))
        }
        self.values = values
        self.ordered = ordered
    }

    subscript(name: String) -> String? { values[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// The keychain `OTHER_CODE_SIGN_FLAGS` points codesign at (`--keychain <path>`), if any.
    var signingKeychain: String? {
        let words = Self.listWords(values["OTHER_CODE_SIGN_FLAGS"] ?? "")
        guard let flag = words.firstIndex(of: "--keychain"), flag + 1 < words.count else { return nil }
        return words[flag + 1]
    }

    /// The words of a list setting: Xcode splits at blanks, honouring quotes and backslashes.
    static func listWords(_ value: String) -> [String] { QuotedWords.split(value, backslashEscapes: true) }
}

/// A codesigning identity (certificate with its private key) in one of the emulated keychains.
struct SigningIdentity: Equatable {
    /// Uppercase hex, as `security find-identity` prints it.
    let sha1: String
    /// The certificate's common name: `Apple Distribution: Example Ltd (ABCDE12345)`.
    let name: String

    /// The team in the name's trailing parentheses.
    var team: String? {
        guard name.hasSuffix(")"), let open = name.lastIndex(of: "(") else { return nil }
        return String(name[name.index(after: open)..<name.index(before: name.endIndex)])
    }

    /// The certificate kind before the colon: `Apple Distribution`, `iPhone Developer`, …
    var kind: String { name.split(separator: ":", maxSplits: 1).first.map(String.init) ?? name }

    /// Whether Xcode would pick this identity for `selector`: a SHA-1, one of the automatic selectors (which match
    /// the old `iPhone …` and the new `Apple …` names alike), or the start of the common name, as codesign matches.
    func matches(selector: String, team wanted: String?) -> Bool {
        if let wanted, let team, wanted != team { return false }
        if selector.count == 40, selector.allSatisfy(\.isHexDigit) { return selector.uppercased() == sha1 }
        switch selector {
        case "iOS Distribution", "iPhone Distribution":
            return kind == "iPhone Distribution" || kind == "Apple Distribution"
        case "iOS Development", "iOS Developer", "iPhone Developer":
            return kind == "iPhone Developer" || kind == "Apple Development"
        default:
            return name.hasPrefix(selector)
        }
    }
}

/// The identities codesign sees: those of the keychain `OTHER_CODE_SIGN_FLAGS=--keychain` names, else of every
/// keychain on the user's search list (`security list-keychains`), in its order.
enum SigningKeychains {
    static let loginKeychain = "login.keychain"

    static func identities(keychain: String?, context: EmulatorContext) -> [SigningIdentity] {
        let security = Security(context: context)
        let searched = keychain.map { [security.keychainURL($0)] } ?? KeychainSearchList(context: context).keychains
        return searched.flatMap { url in
            (security.load(url)?.identities ?? []).compactMap { pair in
                pair.count == 2 ? SigningIdentity(sha1: pair[0].uppercased(), name: pair[1]) : nil
            }
        }
    }

    /// The first identity Xcode would take for `selector` and `team`.
    static func select(selector: String, team: String?, keychain: String?, context: EmulatorContext)
        -> SigningIdentity?
    {
        identities(keychain: keychain, context: context).first { $0.matches(selector: selector, team: team) }
    }
}

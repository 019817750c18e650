/// The xcodebuild action a log was asked for, read from its `Command line invocation:` line, and the banners that
/// report that action. Only a success banner of the requested action makes a layer pass: in a `clean test` log
/// the `** CLEAN SUCCEEDED **` after the clean step says nothing about the tests.
public struct XcodebuildRequestedAction: Equatable, Sendable {
    /// The action as typed (`test`, `test-without-building`, …), or `nil` when the log did not say (then `test`).
    public let name: String?
    /// The `** <ACTION> SUCCEEDED **` words that report this action.
    public let bannerActions: Set<String>

    /// `test` when the log names no action: a test layer's, and `pipe report`'s, default.
    public static let assumedTest = XcodebuildRequestedAction(name: nil, bannerActions: ["TEST", "TEST EXECUTE"])

    private static let bannerWords: [String: String] = [
        "test": "TEST", "test-without-building": "TEST EXECUTE", "build-for-testing": "TEST BUILD",
        "build": "BUILD", "archive": "ARCHIVE", "analyze": "ANALYZE", "clean": "CLEAN", "install": "INSTALL",
        "installsrc": "INSTALLSRC", "docbuild": "DOCBUILD",
    ]

    /// Options that take no value, so the word after them may be an action.
    private static let flags: Set<String> = [
        "-quiet", "-verbose", "-json", "-list", "-showsdks", "-showBuildSettings", "-showdestinations",
        "-allowProvisioningUpdates", "-allowProvisioningDeviceRegistration", "-skipPackagePluginValidation",
        "-skipMacroValidation", "-hideShellScriptEnvironment", "-parallelizeTargets",
        "-disableAutomaticPackageResolution", "-onlyUsePackageVersionsFromResolvedFile", "-skipUnavailableActions",
        "-retry-tests-on-failure", "-usePackageSupportBuiltinSCM", "-exportArchive", "-create-xcframework",
        "-enableCodeCoverage",
    ]

    /// Options that make xcodebuild do something other than an action; without an action it then builds nothing.
    private static let nonBuildingOptions: Set<String> = [
        "-exportArchive", "-exportLocalizations", "-importLocalizations", "-create-xcframework", "-list",
        "-showsdks", "-showBuildSettings", "-showdestinations", "-showTestPlans", "-resolvePackageDependencies",
        "-version", "-license", "-checkFirstLaunchStatus", "-runFirstLaunch", "-downloadPlatform",
        "-downloadAllPlatforms",
        "-help", "-usage",
    ]

    /// The actions named by an invocation line (`/…/xcodebuild -scheme S clean test`), in order; `build`, xcodebuild's
    /// default, for an invocation that names none.
    public static func actions(inInvocation line: String) -> [String] {
        let words = shellWords(line)
        guard let tool = words.firstIndex(where: { $0 == "xcodebuild" || $0.hasSuffix("/xcodebuild") }) else {
            return []
        }
        var actions: [String] = []
        var previous = ""
        for word in words[(tool + 1)...] {
            defer { previous = word }
            if word.hasPrefix("-") || word.contains("=") { continue }
            if previous.hasPrefix("-"), !flags.contains(previous) { continue }
            if bannerWords[word] != nil { actions.append(word) }
        }
        if actions.isEmpty, !words[(tool + 1)...].contains(where: nonBuildingOptions.contains) { return ["build"] }
        return actions
    }

    /// The action that decides: the last one asked for other than `clean` (xcodebuild runs them in order), or
    /// `clean` alone; `test` when none was named.
    public static func deciding(_ actions: [String]) -> XcodebuildRequestedAction {
        guard let name = actions.last(where: { $0 != "clean" }) ?? actions.last, let word = bannerWords[name]
        else { return .assumedTest }
        return XcodebuildRequestedAction(name: name, bannerActions: [word])
    }

    /// Splits at spaces outside quotes (the invocation line quotes values holding spaces).
    private static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == " " || character == "\t" {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

import PipeCore

/// The `xcodebuild` options and build settings Pipe sets itself, refused wherever a pipeline passes arguments or
/// settings through (`xcodebuild-arguments`, `build-settings`, a release build's keys), each with the key to use
/// instead.
///
/// Pipe owns them because it depends on their values: where the result bundle lands (a fresh path per attempt),
/// where products and package checkouts live (its DerivedData and build caches), which simulator runs the tests (a
/// leased one), which tests run (a retry runs only the failed ones), and how code is signed. One of them passed
/// again would override Pipe's, and the run would look right while testing something else.
public enum XcodebuildOwnedOptions {
    /// Options, by name without dashes and lowercased (xcodebuild takes `-name` and `--name`), and what to write
    /// instead.
    static let options: [String: String] = {
        var options: [String: String] = [:]
        func own(_ names: [String], _ instead: String) {
            for name in names { options[name.lowercased()] = instead }
        }
        own(
            ["resultBundlePath", "resultBundleVersion", "resultStreamPath"],
            "Pipe writes a fresh result bundle for each attempt; remove it")
        own(
            [
                "derivedDataPath", "clonedSourcePackagesDirPath", "packageCachePath", "testProductsPath", "xctestrun",
                "IDECustomDerivedDataLocation", "IDEBuildLocationStyle",
            ],
            "Pipe places build products and package checkouts itself (the layer's DerivedData or build cache); "
                + "remove it, or use `clean: true` / `build-cache: false` for a cold build")
        own(["destination"], "the simulator comes from the layer's `simulator:`; remove it")
        own(["scheme"], "use the layer's `scheme:`")
        own(["project"], "use the layer's `project:`")
        own(["workspace"], "use the layer's `workspace:`")
        own(["testPlan"], "use the layer's `test-plan:`")
        own(["configuration"], "use the layer's `configuration:`")
        own(["only-testing"], "use the layer's `only-testing:`")
        own(["skip-testing"], "use the layer's `skip-testing:`")
        own(
            [
                "retry-tests-on-failure", "test-iterations", "run-tests-until-failure",
                "test-repetition-relaunch-enabled",
            ],
            "use `retry: { tests: N }`")
        own(
            ["parallel-testing-enabled", "parallel-testing-worker-count", "maximum-parallel-testing-workers"],
            "use `parallel: { workers: N }` or `parallel: { enabled: false }`")
        own(
            [
                "test-timeouts-enabled", "default-test-execution-time-allowance",
                "maximum-test-execution-time-allowance",
            ],
            "use `test-timeouts: { default: 60s, maximum: 300s }`")
        own(["xcconfig"], "it can set any build setting, Pipe's own among them; use `build-settings:`")
        own(
            [
                "archivePath", "exportArchive", "exportPath", "exportOptionsPlist", "exportLocalizations",
                "importLocalizations",
            ],
            "archives and exports are a release build's, with its own keys; remove it")
        own(
            [
                "list", "version", "usage", "help", "showsdks", "showdestinations", "showBuildSettings",
                "showTestPlans", "checkFirstLaunchStatus", "runFirstLaunch",
            ],
            "it replaces the layer's action, so no test would run; remove it")
        return options
    }()

    /// The actions xcodebuild takes as bare words; the layer's kind chooses its action.
    static let actions: Set<String> = [
        "build", "build-for-testing", "analyze", "archive", "test", "test-without-building", "docbuild",
        "installsrc", "install", "clean",
    ]

    /// Build settings, and what to write instead.
    static let settings: [String: String] = {
        var settings: [String: String] = [:]
        let paths = [
            "SYMROOT", "OBJROOT", "BUILD_DIR", "BUILD_ROOT", "CONFIGURATION_BUILD_DIR", "CONFIGURATION_TEMP_DIR",
            "PROJECT_TEMP_DIR", "PROJECT_TEMP_ROOT", "TARGET_BUILD_DIR", "TARGET_TEMP_DIR", "SHARED_PRECOMPS_DIR",
            "CACHE_ROOT", "MODULE_CACHE_DIR", "DSTROOT", "LOCROOT", "LOCSYMROOT",
        ]
        for name in paths {
            settings[name] =
                "Pipe places build products itself (the layer's DerivedData or build cache); remove it, or use "
                + "`clean: true` / `build-cache: false` for a cold build"
        }
        for name in ["OTHER_CODE_SIGN_FLAGS", "CODE_SIGN_KEYCHAIN", "CODE_SIGN_INJECT_BASE_ENTITLEMENTS"] {
            settings[name] = "code signing is Pipe's (a release build's signing keys); remove it"
        }
        return settings
    }()

    /// Why `argument` (one word of `xcodebuild-arguments`) is refused, or `nil` when Pipe leaves it to the user.
    public static func refusal(forArgument argument: String) -> String? {
        if actions.contains(argument) {
            return "'\(argument)' is an xcodebuild action; the layer's plugin chooses the action, remove it"
        }
        if argument.hasPrefix("-") {
            var name = Substring(argument).drop(while: { $0 == "-" })
            // `-only-testing:Target/Test`, and user defaults written `-Name=value`.
            if let end = name.firstIndex(where: { $0 == ":" || $0 == "=" }) { name = name[..<end] }
            guard let instead = options[name.lowercased()] else { return nil }
            return "'\(argument)' is set by Pipe: \(instead)"
        }
        if let equals = argument.firstIndex(of: "=") {
            return refusal(forBuildSetting: String(argument[..<equals]))
        }
        return nil
    }

    /// Why the build setting `name` is refused, or `nil` when Pipe leaves it to the user.
    public static func refusal(forBuildSetting name: String) -> String? {
        // A conditional setting (`SYMROOT[sdk=iphonesimulator*]`) sets the same thing.
        let base = name.split(separator: "[", maxSplits: 1).first.map(String.init) ?? name
        guard let instead = settings[base.uppercased()] else { return nil }
        return "the build setting \(base) is set by Pipe: \(instead)"
    }

    /// The refused words of an `xcodebuild-arguments` list, by index; also refuses empty words.
    public static func problems(inArguments arguments: [String]) -> [SettingProblem] {
        arguments.enumerated().compactMap { index, argument in
            if argument.isEmpty { return SettingProblem(.entry(index), "an empty argument; remove it") }
            return refusal(forArgument: argument).map { SettingProblem(.entry(index), $0) }
        }
    }

    /// The refused names of a `build-settings` mapping, by key.
    public static func problems(inBuildSettings settings: [String: String]) -> [SettingProblem] {
        settings.keys.sorted().compactMap { name in
            refusal(forBuildSetting: name).map { SettingProblem(.key(name), $0) }
        }
    }
}

import PipeApple
import PipeCore

/// The `xcodebuild-test` settings that become xcodebuild options: `parallel`, `test-timeouts` and the escape hatch
/// `xcodebuild-arguments`, with the checks the loader and the plugin both apply.
enum XcodebuildTestOptions {
    static let parallelKey = "parallel"
    static let testTimeoutsKey = "test-timeouts"
    static let argumentsKey = "xcodebuild-arguments"
    static let buildSettingsKey = "build-settings"

    static let settings: [SettingSchema] = [
        SettingSchema(
            buildSettingsKey, .map, check: SettingCheck("xcodebuild-owned-build-settings", buildSettingsProblems),
            "Extra build settings, NAME: value (not those Pipe sets: SYMROOT, OBJROOT, OTHER_CODE_SIGN_FLAGS, …)."),
        SettingSchema(
            parallelKey, .record,
            fields: [
                SettingField("workers", .integer, "How many test runners in parallel (1 or more)."),
                SettingField("enabled", .boolean, "false turns parallel testing off."),
            ],
            check: SettingCheck("xcodebuild-parallel", parallelProblems),
            "Xcode's parallel testing: { workers: N } or { enabled: false }; the scheme decides when absent."),
        SettingSchema(
            testTimeoutsKey, .record,
            fields: [
                SettingField("default", .duration, "The time a test may take unless it asks for more."),
                SettingField("maximum", .duration, "The most any test may take, whatever it asks for."),
            ],
            check: SettingCheck("xcodebuild-test-timeouts", testTimeoutsProblems),
            "XCTest's execution time allowances, e.g. { default: 60s, maximum: 300s }; a test past it fails."),
        SettingSchema(
            argumentsKey, .strings, check: SettingCheck("xcodebuild-owned-arguments", argumentsProblems),
            "Extra xcodebuild arguments, one word each (each reaches the host quoted); not the options Pipe sets."),
    ]

    // MARK: Checks

    @Sendable static func buildSettingsProblems(_ value: SettingValue) -> [SettingProblem] {
        guard case .map(let map) = value else { return [] }
        return XcodebuildOwnedOptions.problems(inBuildSettings: map)
    }

    @Sendable static func argumentsProblems(_ value: SettingValue) -> [SettingProblem] {
        XcodebuildOwnedOptions.problems(inArguments: value.stringsValue ?? [])
    }

    @Sendable static func parallelProblems(_ value: SettingValue) -> [SettingProblem] {
        guard case .map(let fields) = value else { return [] }
        var problems: [SettingProblem] = []
        if let workers = fields["workers"], (Int(workers) ?? 0) < 1 {
            problems.append(SettingProblem(.key("workers"), "\(workers) workers: give 1 or more"))
        }
        if fields["enabled"] == "false", fields["workers"] != nil {
            problems.append(
                SettingProblem(.key("workers"), "workers with enabled: false; remove one of them"))
        }
        if fields.isEmpty {
            problems.append(SettingProblem(.value, "write { workers: N } or { enabled: false }"))
        }
        return problems
    }

    @Sendable static func testTimeoutsProblems(_ value: SettingValue) -> [SettingProblem] {
        guard case .map(let fields) = value else { return [] }
        var problems: [SettingProblem] = []
        for key in ["default", "maximum"] {
            if let text = fields[key], (Double(text) ?? 0) < 1 {
                problems.append(SettingProblem(.key(key), "XCTest's allowances are whole seconds, 1s or more"))
            }
        }
        if let standard = fields["default"].flatMap(Double.init), let maximum = fields["maximum"].flatMap(Double.init),
            standard > maximum
        {
            problems.append(SettingProblem(.key("default"), "the default is above the maximum; lower it"))
        }
        if fields.isEmpty {
            problems.append(SettingProblem(.value, "write { default: 60s } and/or { maximum: 300s }"))
        }
        return problems
    }

    // MARK: Options

    /// The xcodebuild options of `layer`'s settings; the checks run again here, since a layer reaches the plugin
    /// after `${}` interpolation, and not only from a pipeline file.
    ///
    /// - Throws: `ConfigurationError` naming the layer, the setting and what to write instead.
    static func options(of layer: LayerSpec) throws -> [String] {
        try check(layer)
        var options: [String] = []
        if case .map(let parallel)? = layer.settings[parallelKey] {
            if parallel["enabled"] == "false" {
                options += ["-parallel-testing-enabled", "NO"]
            } else if let workers = parallel["workers"] {
                options += ["-parallel-testing-enabled", "YES", "-parallel-testing-worker-count", workers]
            } else if parallel["enabled"] == "true" {
                options += ["-parallel-testing-enabled", "YES"]
            }
        }
        if case .map(let timeouts)? = layer.settings[testTimeoutsKey], !timeouts.isEmpty {
            options += ["-test-timeouts-enabled", "YES"]
            if let standard = timeouts["default"] {
                options += ["-default-test-execution-time-allowance", wholeSeconds(standard)]
            }
            if let maximum = timeouts["maximum"] {
                options += ["-maximum-test-execution-time-allowance", wholeSeconds(maximum)]
            }
        }
        options += layer.settings[argumentsKey]?.stringsValue ?? []
        return options
    }

    /// Xcode's own retry of failed tests for `retry.tests` (`-retry-tests-on-failure -test-iterations N+1`, Xcode 13
    /// and later: only the failed tests run again, inside the same xcodebuild); `nil` when the layer retries no test
    /// or the host's Xcode lacks it (then the engine runs the layer again).
    static func toolRetries(_ context: LayerContext) -> Int? {
        guard context.testRetries > 0, let xcode = context.hostXcode, xcode.hasPrefix("Xcode "),
            let version = NumericVersion(String(xcode.dropFirst("Xcode ".count).prefix { $0 != " " })),
            version >= NumericVersion("13")!
        else { return nil }
        return context.testRetries
    }

    /// The `-only-testing` identifiers of a test retry: `Target/Suite/test` for each test that failed, so only they
    /// run again; `nil` on any other attempt, or when a failed test's target is unknown (then every test runs again
    /// and the engine still merges per test).
    static func onlyTestingRetried(_ context: LayerContext) -> [String]? {
        onlyTesting(retrying: context.testsToRetry)
    }

    static func onlyTesting(retrying tests: [TestCaseResult]) -> [String]? {
        guard !tests.isEmpty else { return nil }
        var identifiers: [String] = []
        for test in tests {
            guard let target = test.target, !target.isEmpty else { return nil }
            // XCTest names a method without `()`; Swift Testing's `name(argument:)` keeps its labels.
            let name = test.identifier.hasSuffix("()") ? String(test.identifier.dropLast(2)) : test.identifier
            let identifier = "\(target)/\(name)"
            if !identifiers.contains(identifier) { identifiers.append(identifier) }
        }
        return identifiers
    }

    static func retryOptions(_ context: LayerContext) -> [String] {
        guard let retries = toolRetries(context) else { return [] }
        return ["-retry-tests-on-failure", "-test-iterations", String(retries + 1)]
    }

    /// The options of a shared `build-for-testing`: the layer's `xcodebuild-arguments` only, since what Pipe's keys
    /// set is about running tests.
    static func buildOptions(of layer: LayerSpec) throws -> [String] {
        try check(layer)
        return layer.settings[argumentsKey]?.stringsValue ?? []
    }

    /// Refuses what the loader refuses, for a layer however it was made.
    static func check(_ layer: LayerSpec) throws {
        var found: [String] = []
        for schema in settings {
            guard let check = schema.check, let value = layer.settings[schema.key] else { continue }
            found += check.problems(value).map { "\(schema.key): \($0)" }
        }
        guard found.isEmpty else {
            throw ConfigurationError("layer \(layer.name): " + found.joined(separator: "; "))
        }
    }

    /// XCTest takes allowances in whole seconds; a fraction rounds up so a test never gets less than written.
    private static func wholeSeconds(_ text: String) -> String {
        String(Int((Double(text) ?? 1).rounded(.up)))
    }
}

/// Texts that say the test runner or the simulator failed before or around the tests, not the app under test:
/// the usual causes of "flaky CI" on Macs. Collected from the retry lists of public CI steps (bitrise
/// steps-xcode-test's `testRunnerErrorPatterns`) and reported logs, Xcode 6 to 26 (`apple-formats.md` Part 2 §6).
///
/// An app that crashes at launch prints some of the same lines ("Early unexpected exit"), so the engine retries
/// these on another simulator and a second identical failure is the app's.
public enum TestRunnerFailure {
    /// Each text, and the era it was seen in (for whoever extends the list).
    public static let texts: [String] = [
        // Xcode 8–10: the runner exited before the first test (code 5, wrapped by code 6 from Xcode 10).
        "Early unexpected exit, operation never finished bootstrapping",
        "Test runner exited before starting test execution",
        // Xcode 8–8.3.
        "Failed to background test runner",
        "Test runner failed to initialize for UI testing",
        "Timed out registering for testing event",
        "App state is still not running active",
        "App accessibility isn't loaded",
        "Failure attempting to launch <XCUIApplicationImpl",
        // Xcode 12.5 onward.
        "Test runner never began executing tests after launching",
        "Failed to install or launch the test runner",
        "The test runner hung before establishing connection",
        // Xcode 6–7: the simulator or the UI-test runner timed out bootstrapping.
        "iPhoneSimulator: Timed out waiting",
        "Terminating app due to uncaught exception '_XCTestCaseInterruptionException'",
        "UI Testing Failure - Failed to receive completion for",
        // Xcode 7–15: the test manager went away.
        "Lost connection to test manager service",
        "Lost connection to testmanagerd",
        "Canceling tests due to timeout in Checking test manager availability",
        "com.apple.testmanagerd.control was invalidated",
        "DTXProxyChannel error",
        // The runner app could not be opened (SpringBoard denied it, or did not know the app yet).
        "FBSOpenApplicationServiceErrorDomain",
        "is unknown to FrontBoard",
        "Error Domain=SBWorkspaceTransaction",
        "FBSApplicationLibrary",
        // The simulator could not be booted (CoreSimulator, simctl exit 149/164).
        "domain=com.apple.CoreSimulator.SimError",
        "Unable to boot device in current state",
    ]

    static let needles: [[UInt8]] = texts.map { Array($0.utf8) }

    /// Whether `text` holds one of the runner-failure texts.
    public static func matches(_ text: String) -> Bool {
        texts.contains(where: text.contains)
    }

    /// The runner-failure text `line` holds (the first of `texts`), so two attempts can be told to fail the same way.
    public static func text(in line: String) -> String? {
        texts.first(where: line.contains)
    }
}

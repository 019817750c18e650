/// What the emulator stores inside a `.xcresult` bundle (as the root object of `Data/`) so that the emulated
/// `xcresulttool` can answer questions about the run later.
struct ResultBundleRecord: Codable, Equatable {
    /// The simulator the tests ran on.
    struct Destination: Codable, Equatable {
        var udid: String
        var name: String
        var modelName: String
        var osVersion: String
        var osBuild: String
        var platform: String
        var architecture: String
    }

    /// A compiler error from the build phase.
    struct BuildIssue: Codable, Equatable {
        var file: String?
        var line: Int?
        var column: Int?
        var message: String
    }

    /// One assertion failure or skip reason, at a source location when known.
    struct Issue: Codable, Equatable {
        var file: String?
        var line: Int?
        var message: String
    }

    /// One finished test case.
    struct TestCase: Codable, Equatable {
        var target: String
        var suite: String
        var name: String
        /// `passed`, `failed` or `skipped`.
        var status: String
        var duration: Double
        var failures: [Issue]
        var skipReason: Issue?

        var identity: TestIdentity { TestIdentity(target: target, suite: suite, name: name) }
    }

    var recordVersion = 1
    var scheme: String
    var containerName: String
    var xcodeVersion: String
    var xcodeBuild: String
    var macOSVersion: String
    var startTime: Double
    var finishTime: Double
    var destination: Destination?
    var buildSucceeded: Bool
    var buildErrors: [BuildIssue]
    var tests: [TestCase]
    /// Set when the test run ended abnormally (a crashed test process), with the reason.
    var testRunError: String?
    /// Line coverage per target, when the run measured it.
    var coverage: [TestEvidence.CoverageTarget]?
    /// The files tests attached, kept in the bundle's `Attachments/` folder.
    var attachments: [TestEvidence.Attachment]?
}

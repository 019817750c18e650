import Foundation

/// `pipe-canned-results.json` at a workspace's root: per scheme, the build outcome and test results that
/// canned mode replays (schema in emulator/README.md).
struct CannedResults: Codable, Equatable {
    /// One scheme's replayed run.
    struct Scheme: Codable, Equatable {
        /// How long the build phase takes (slept). Default 0.2.
        var buildSeconds: Double?
        /// When present and not empty, the build fails with these errors and no test runs.
        var buildErrors: [BuildError]?
        var tests: [Test]
        /// Line coverage per target, reported when the run asks for coverage; file paths relative to the workspace
        /// root (or absolute).
        var coverage: [TestEvidence.CoverageTarget]?
        /// The app `archive` builds (defaults in `ArchivedApp`).
        var app: App?
    }

    /// A file a test attaches; `file` is relative to the workspace root (or absolute).
    struct Attachment: Codable, Equatable {
        var name: String
        var file: String
        /// Tied to the test's failure; by default, when the test failed.
        var associatedWithFailure: Bool?
    }

    /// A compiler error; `file` is relative to the workspace root (or absolute).
    struct BuildError: Codable, Equatable {
        var file: String?
        var line: Int?
        var column: Int?
        var message: String
    }

    /// A test outcome to replay.
    struct Test: Codable, Equatable {
        enum Status: String, Codable {
            case passed, failed, skipped
        }

        var target: String
        var suite: String
        var name: String
        var status: Status
        /// Seconds the test takes; really slept, so a long duration is a hung test.
        var duration: Double?
        /// Failure message (failed) or skip reason (skipped).
        var message: String?
        /// Source file of the failure or skip, relative to the workspace root (or absolute).
        var file: String?
        var line: Int?
        /// A flaky test: it fails this many times in a workspace (with `message`), then takes `status`. Counted in
        /// `FlakyTestCounter.fileName` at the workspace root, so retries within one run see earlier attempts.
        var failuresBeforePass: Int?
        /// Files the test attaches each time it runs.
        var attachments: [Attachment]?

        var identity: TestIdentity { TestIdentity(target: target, suite: suite, name: name) }
    }

    static let fileName = "pipe-canned-results.json"

    var schemes: [String: Scheme]

    /// Reads the fixture from the workspace root.
    static func load(root: URL) throws -> CannedResults {
        let url = root.appendingPathComponent(fileName)
        guard let data = try? Data(contentsOf: url) else {
            throw XcodebuildError.cannedResults(
                "the host is in canned mode but \(url.path) does not exist; add it or switch the host config to "
                    + "\"mode\": \"real\"")
        }
        do {
            return try JSONDecoder().decode(CannedResults.self, from: data)
        } catch let error as DecodingError {
            throw XcodebuildError.cannedResults("\(url.path) is not valid canned results: \(describe(error))")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing '\(key.stringValue)' at '\(path(context.codingPath))'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "'\(path(context.codingPath))': \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

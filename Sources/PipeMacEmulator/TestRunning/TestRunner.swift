import Foundation

/// The folder `xcodebuild` works on and what it is: a Swift package, an `.xcodeproj` or an `.xcworkspace`.
struct TestWorkspace {
    /// The folder that holds the package, project or workspace.
    let root: URL
    /// "workspace" or "project": the word xcodebuild uses in its scheme error (a package counts as a workspace).
    let containerKind: String
    /// The container's name: the project or workspace file name without extension, or the package's folder name.
    let containerName: String

    /// The package's name from `Package.swift` (`name: "…"` of `Package(`), or the folder name.
    var packageName: String {
        let manifest = root.appendingPathComponent("Package.swift")
        if let text = try? String(contentsOf: manifest, encoding: .utf8),
            let call = text.range(of: "Package("),
            let name = text[call.upperBound...].range(of: #"name:\s*"([^"]+)""#, options: .regularExpression)
        {
            let match = text[name]
            if let open = match.firstIndex(of: "\""), let close = match.lastIndex(of: "\""), open < close {
                return String(match[match.index(after: open)..<close])
            }
        }
        return root.lastPathComponent
    }

    /// The test target a source file belongs to, by the SwiftPM layout (`Sources/<T>/…`, `Tests/<T>/…`).
    func target(ofFile path: String) -> String? {
        let relative = path.hasPrefix(root.path + "/") ? String(path.dropFirst(root.path.count + 1)) : path
        let parts = relative.split(separator: "/")
        guard parts.count >= 3, parts[0] == "Sources" || parts[0] == "Tests" else { return nil }
        return String(parts[1])
    }

    /// `/abs/path` for a path relative to the workspace root.
    func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : root.appendingPathComponent(path).path
    }
}

/// What the build phase produced.
struct BuildOutcome {
    var succeeded: Bool
    var errors: [ResultBundleRecord.BuildIssue] = []
    /// Lines for "The following build commands failed:" (without the leading tab).
    var failedCommands: [String] = []
}

/// Produces the build and test phases of `xcodebuild test`: replayed (canned) or real (`swift`).
protocol TestRunner {
    /// The test targets a build makes (the `.xctest` bundles `build-for-testing` leaves in derived data).
    var testTargets: [String] { get }

    /// Runs the build phase, printing Xcode-style build lines.
    func build() throws -> BuildOutcome

    /// Runs the selected tests, driving `reporter`; returns why the run could not finish, if it could not.
    func runTests(selection: TestSelection, reporter: XCTestReporter) throws -> TestRunProblem?

    /// What the finished `tests` left besides verdicts: coverage when `codeCoverage` (`-enableCodeCoverage YES`),
    /// and attachments.
    func evidence(codeCoverage: Bool, tests: [ResultBundleRecord.TestCase]) -> TestEvidence
}

/// A test run that could not give every selected test a verdict, listed under "Testing failed:" as
/// `Run test suite <suite> encountered an error (<message>)` (apple-formats.md 3.8).
struct TestRunProblem: Equatable {
    var suite: String
    var message: String
    /// The test that was running; Xcode reports it here rather than under "Failing tests:".
    var test: TestIdentity?
}

/// Xcode-style build log lines shared by both runners.
enum BuildLogLine {
    /// `SwiftCompile normal arm64 Compiling\ File.swift /abs/File.swift (in target 'T' from project 'P')`
    static func compile(file: String, target: String, project: String, architecture: String) -> String {
        let name = URL(fileURLWithPath: file).lastPathComponent.replacingOccurrences(of: " ", with: "\\ ")
        return "SwiftCompile normal \(architecture) Compiling\\ \(name) \(file) (in target '\(target)' from project "
            + "'\(project)')"
    }

    /// `SwiftCompile normal arm64 /abs/File.swift (in target 'T' from project 'P')`
    static func compileDriver(file: String, target: String, project: String, architecture: String) -> String {
        "SwiftCompile normal \(architecture) \(file) (in target '\(target)' from project '\(project)')"
    }

    /// The failed-commands lines for the files that had errors, two per file as Xcode 15/16 list them.
    static func failedCommands(
        for errors: [ResultBundleRecord.BuildIssue], workspace: TestWorkspace, architecture: String
    ) -> [String] {
        var seen = Set<String>()
        var lines: [String] = []
        for error in errors {
            guard let file = error.file, seen.insert(file).inserted else { continue }
            let target = workspace.target(ofFile: file) ?? workspace.containerName
            lines.append(
                compile(file: file, target: target, project: workspace.containerName, architecture: architecture))
            lines.append(
                compileDriver(file: file, target: target, project: workspace.containerName, architecture: architecture))
        }
        return lines
    }
}

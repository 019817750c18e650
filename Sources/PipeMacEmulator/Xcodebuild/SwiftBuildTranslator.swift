import Foundation

/// Turns `swift build` output into Xcode-style build log lines: progress lines become `SwiftCompile …`,
/// `SwiftEmitModule …` and `Ld …` lines; compiler diagnostics (`file:line:col: error: …` and their source
/// excerpts) are kept as they are and the errors are collected for the build-failure summary.
struct SwiftBuildTranslator {
    let workspace: TestWorkspace
    let architecture: String
    let binPath: String
    private(set) var errors: [ResultBundleRecord.BuildIssue] = []
    /// `error: …` lines without a location (manifest errors, "emit-module command failed").
    private(set) var generalErrors: [String] = []
    private var seenDiagnostics = Set<String>()
    private var suppressingDuplicate = false
    private let sourceFiles: [String: [String]]

    init(workspace: TestWorkspace, architecture: String, binPath: String) {
        self.workspace = workspace
        self.architecture = architecture
        self.binPath = binPath
        sourceFiles = Self.indexSources(under: workspace.root)
    }

    private static let progress = try! NSRegularExpression(pattern: #"^\[\d+/\d+\] (.*)$"#)
    private static let diagnostic = try! NSRegularExpression(
        pattern: #"^(.+?):(\d+):(\d+): (error|warning|note): (.*)$"#)

    /// The lines to print for one line of `swift build` output (often none).
    mutating func translate(_ line: String) -> [String] {
        if let step = Self.match(Self.progress, line)?[1] {
            suppressingDuplicate = false
            return translateStep(step)
        }
        if line.hasPrefix("Building for ") || line.hasPrefix("Build complete!") || line.hasPrefix("Compiling plugin")
            || line.hasPrefix("Build of ")
        {
            return []
        }
        if let parts = Self.match(Self.diagnostic, line) {
            // SwiftPM can report one error twice (emit-module and compile); Xcode's log shows it once per file.
            let isNew = seenDiagnostics.insert(line).inserted
            suppressingDuplicate = !isNew
            guard isNew else { return [] }
            if parts[4] == "error" {
                errors.append(.init(file: parts[1], line: Int(parts[2]), column: Int(parts[3]), message: parts[5]))
            }
            return [line]
        }
        if line.hasPrefix("error: ") {
            suppressingDuplicate = false
            generalErrors.append(String(line.dropFirst("error: ".count)))
            return [line]
        }
        return suppressingDuplicate ? [] : [line]
    }

    private func translateStep(_ step: String) -> [String] {
        let project = workspace.containerName
        let words = step.split(separator: " ", maxSplits: 2).map(String.init)
        guard words.count >= 2 else { return [] }
        switch words[0] {
        case "Compiling" where words.count == 3 && !Self.isGenerated(words[1]):
            let module = words[1]
            return words[2].components(separatedBy: ", ").flatMap { name -> [String] in
                let file =
                    sourceFiles[name]?.first { workspace.target(ofFile: $0) == module }
                    ?? workspace.absolute("Sources/\(module)/\(name)")
                return [
                    BuildLogLine.compile(file: file, target: module, project: project, architecture: architecture), "",
                ]
            }
        case "Emitting" where words.count == 3 && words[1] == "module" && !Self.isGenerated(words[2]):
            let module = words[2]
            return [
                "SwiftEmitModule normal \(architecture) Emitting\\ module\\ for\\ \(module) (in target '\(module)' "
                    + "from project '\(project)')", "",
            ]
        case "Linking":
            let product = words.dropFirst().joined(separator: " ")
            return ["Ld \(binPath)/\(product) normal (in target '\(product)' from project '\(project)')", ""]
        default:
            return []
        }
    }

    /// Modules SwiftPM generates to discover and run tests; Xcode has no such targets.
    private static func isGenerated(_ module: String) -> Bool {
        module.hasSuffix("PackageDiscoveredTests") || module.hasSuffix("PackageTests")
    }

    private static func match(_ expression: NSRegularExpression, _ line: String) -> [String]? {
        let range = NSRange(line.startIndex..., in: line)
        guard let result = expression.firstMatch(in: line, range: range) else { return nil }
        return (0..<result.numberOfRanges).map { index in
            Range(result.range(at: index), in: line).map { String(line[$0]) } ?? ""
        }
    }

    /// File name → absolute paths of the package's Swift sources (for the absolute paths Xcode prints).
    private static func indexSources(under root: URL) -> [String: [String]] {
        var index: [String: [String]] = [:]
        for folder in ["Sources", "Tests"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let path = base.appendingPathComponent(relative).path
                index[URL(fileURLWithPath: relative).lastPathComponent, default: []].append(path)
            }
        }
        return index
    }
}

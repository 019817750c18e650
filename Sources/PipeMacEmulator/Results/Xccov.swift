import Foundation

/// The emulated `xccov`: `view --report --json <bundle>` (and `--only-targets`), from the coverage the result bundle
/// recorded; a bundle without coverage gets xccov's refusal.
struct Xccov {
    let context: EmulatorContext

    private static let usage =
        "Usage: xccov view [--only-targets | --files-for-target target_name | --functions-for-file name_or_path] "
        + "[--json] --report result_bundle.xcresult"

    func run(_ arguments: [String]) -> Int32 {
        guard arguments.first == "view" else {
            context.stderr.line("Error: the emulated xccov answers 'view --report' only")
            context.stderr.line(Self.usage)
            return 64
        }
        var json = false
        var onlyTargets = false
        var report = false
        var path: String?
        for argument in arguments.dropFirst() {
            switch argument {
            case "--json": json = true
            case "--only-targets": onlyTargets = true
            case "--report": report = true
            default:
                guard !argument.hasPrefix("-"), path == nil else {
                    context.stderr.line("Error: unknown option '\(argument)'")
                    context.stderr.line(Self.usage)
                    return 64
                }
                path = argument
            }
        }
        guard report, json, let path else {
            context.stderr.line("Error: the emulated xccov prints reports of result bundles as JSON only")
            context.stderr.line(Self.usage)
            return 64
        }
        let record: ResultBundleRecord
        do {
            record = try ResultBundle.read(at: context.absolutePath(path))
        } catch {
            context.stderr.line("Error: Failed to load result bundle at \(path): \(error)")
            return 1
        }
        guard let coverage = record.coverage else {
            context.stderr.line("Error: Failed to load coverage report: the result bundle has no coverage data")
            return 1
        }
        let document = Self.report(coverage, onlyTargets: onlyTargets)
        context.stdout.write(document.rendered(AppleJSON.Style(sortsKeys: true, escapesSlashes: true, compact: true)))
        context.stdout.line()
        return 0
    }

    /// xccov's shape: totals, then per target (named `<module>.framework` or `<module>.xctest`) its files.
    static func report(_ targets: [TestEvidence.CoverageTarget], onlyTargets: Bool) -> AppleJSON {
        func fraction(_ covered: Int, _ executable: Int) -> AppleJSON {
            .double(executable == 0 ? 0 : Double(covered) / Double(executable))
        }
        var covered = 0
        var executable = 0
        var targetDocuments: [AppleJSON] = []
        for target in targets {
            let targetCovered = target.files.reduce(0) { $0 + $1.coveredLines }
            let targetExecutable = target.files.reduce(0) { $0 + $1.executableLines }
            covered += targetCovered
            executable += targetExecutable
            var fields: [AppleJSON.Member] = [
                .init("name", .string(target.name)),
                .init("buildProductPath", .string("/tmp/Build/Products/" + target.name)),
                .init("coveredLines", .int(targetCovered)), .init("executableLines", .int(targetExecutable)),
                .init("lineCoverage", fraction(targetCovered, targetExecutable)),
            ]
            if !onlyTargets {
                fields.append(
                    .init(
                        "files",
                        .array(
                            target.files.map { file in
                                .object([
                                    .init("name", .string(URL(fileURLWithPath: file.path).lastPathComponent)),
                                    .init("path", .string(file.path)), .init("coveredLines", .int(file.coveredLines)),
                                    .init("executableLines", .int(file.executableLines)),
                                    .init("lineCoverage", fraction(file.coveredLines, file.executableLines)),
                                    .init("functions", .array([])),
                                ])
                            })
                    ))
            }
            targetDocuments.append(.object(fields))
        }
        if onlyTargets { return .array(targetDocuments) }
        return .object([
            .init("coveredLines", .int(covered)), .init("executableLines", .int(executable)),
            .init("lineCoverage", fraction(covered, executable)), .init("targets", .array(targetDocuments)),
        ])
    }
}

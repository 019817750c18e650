import Foundation

/// `llvm-cov export -summary-only` of a real-mode test run, turned into what `xccov` reports: the workspace's
/// files under `Sources/<Target>/` as the target `<Target>.framework`, those under `Tests/<Target>/` as
/// `<Target>.xctest`; files the package manager generated (test discovery, the runner) and files outside the
/// workspace are not the project's and are left out, as xccov leaves out what it did not instrument.
enum LLVMCoverageExport {
    private struct Export: Decodable {
        var type: String?
        var data: [Unit]
    }

    private struct Unit: Decodable {
        var files: [File]
    }

    private struct File: Decodable {
        var filename: String
        var summary: Summary
    }

    private struct Summary: Decodable {
        var lines: Lines
    }

    private struct Lines: Decodable {
        var count: Int
        var covered: Int
    }

    /// - Throws: when `data` is not llvm-cov's export.
    static func targets(_ data: Data, workspaceRoot: String) throws -> [TestEvidence.CoverageTarget] {
        let export = try JSONDecoder().decode(Export.self, from: data)
        let root = workspaceRoot.hasSuffix("/") ? workspaceRoot : workspaceRoot + "/"
        var targets: [TestEvidence.CoverageTarget] = []
        for file in export.data.flatMap(\.files) {
            guard file.filename.hasPrefix(root), file.summary.lines.count >= 0,
                (0...file.summary.lines.count).contains(file.summary.lines.covered)
            else { continue }
            let parts = file.filename.dropFirst(root.count).split(separator: "/")
            guard parts.count >= 3 else { continue }
            let name: String
            switch parts[0] {
            case "Sources": name = "\(parts[1]).framework"
            case "Tests": name = "\(parts[1]).xctest"
            default: continue
            }
            let measured = TestEvidence.CoverageFile(
                path: file.filename, coveredLines: file.summary.lines.covered,
                executableLines: file.summary.lines.count)
            if let index = targets.firstIndex(where: { $0.name == name }) {
                targets[index].files.append(measured)
            } else {
                targets.append(TestEvidence.CoverageTarget(name: name, files: [measured]))
            }
        }
        // xccov lists products before test bundles.
        return targets.sorted {
            ($0.name.hasSuffix(".xctest") ? 1 : 0, $0.name) < ($1.name.hasSuffix(".xctest") ? 1 : 0, $1.name)
        }
    }
}

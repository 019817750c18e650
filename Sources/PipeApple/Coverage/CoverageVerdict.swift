import Foundation
import PipeCore

/// What a coverage report says against a layer's `coverage:`: each target's lines, and the shortfalls.
public struct CoverageVerdict: Equatable, Sendable {
    /// One measured target.
    public struct TargetCoverage: Equatable, Sendable {
        /// The product name as the report gives it (`Reader.app`).
        public var name: String
        public var coveredLines: Int
        public var executableLines: Int
        /// Whether the pipeline holds it to the minimum.
        public var isRequired: Bool

        public var percent: Double { XccovReport.fraction(coveredLines, of: executableLines) * 100 }

        /// `Reader.app 72.50% (145/200 lines)`.
        public var text: String {
            "\(name) \(CoverageVerdict.percentText(percent)) (\(coveredLines)/\(executableLines) lines)"
        }
    }

    /// Every target that is not a test bundle, and any test bundle named in `targets`.
    public var targets: [TargetCoverage]
    /// Targets below the minimum, as evidence.
    public var shortfalls: [String]
    /// Targets the pipeline names that the report does not have: the pipeline's mistake, never the app's.
    public var missingTargets: [String]

    /// Checks `report` against `requirement`.
    public static func check(_ report: XccovReport, against requirement: CoverageRequirement) -> CoverageVerdict {
        let named = Set(requirement.targets)
        var targets: [TargetCoverage] = []
        for target in report.targets {
            let isNamed = named.contains(target.moduleName) || named.contains(target.name)
            guard isNamed || !target.isTestBundle else { continue }
            targets.append(
                TargetCoverage(
                    name: target.name, coveredLines: min(target.coveredLines, target.executableLines),
                    executableLines: target.executableLines, isRequired: named.isEmpty || isNamed))
        }
        let found = Set(report.targets.flatMap { [$0.name, $0.moduleName] })
        let missing = requirement.targets.filter { !found.contains($0) }
        var shortfalls: [String] = []
        if let minimum = requirement.minimumPercent {
            for target in targets where target.isRequired && target.percent < minimum {
                shortfalls.append("coverage of \(target.text) is below the minimum \(percentText(minimum))")
            }
        }
        return CoverageVerdict(targets: targets, shortfalls: shortfalls, missingTargets: missing)
    }

    /// The evidence line for targets the pipeline names but the report lacks.
    public func missingTargetsEvidence(reportTargets: [String]) -> String? {
        guard !missingTargets.isEmpty else { return nil }
        return "coverage names \(missingTargets.joined(separator: ", ")), which the coverage report does not have "
            + "(it has \(reportTargets.isEmpty ? "no targets" : reportTargets.joined(separator: ", "))); fix "
            + "`coverage.targets` in the pipeline"
    }

    /// `72.50%`, `80%`.
    public static func percentText(_ percent: Double) -> String {
        let rounded = (percent * 100).rounded() / 100
        if rounded == rounded.rounded() { return "\(Int(rounded))%" }
        return String(format: "%.2f%%", rounded)
    }

    /// The facts for every measured target (`CoverageFacts`).
    public var facts: [String: String] {
        CoverageFacts.facts(
            targets.map {
                CoverageFacts.Target(name: $0.name, coveredLines: $0.coveredLines, executableLines: $0.executableLines)
            })
    }
}

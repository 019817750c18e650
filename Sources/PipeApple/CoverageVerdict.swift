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

    /// The prefix of the attempt facts that carry each target's lines (`coverage.Reader.app` = `145/200`): facts
    /// are kept by the store, so the next run of the branch can show the change.
    public static let factPrefix = "coverage."

    /// The facts for every measured target.
    public var facts: [String: String] {
        Dictionary(
            targets.map { (Self.factPrefix + $0.name, "\($0.coveredLines)/\($0.executableLines)") },
            uniquingKeysWith: { first, _ in first })
    }

    /// Reads the facts back: target name → (covered, executable).
    public static func targets(fromFacts facts: [String: String]) -> [(name: String, covered: Int, executable: Int)] {
        facts.compactMap { key, value in
            guard key.hasPrefix(factPrefix) else { return nil }
            let parts = value.split(separator: "/")
            guard parts.count == 2, let covered = Int(parts[0]), let executable = Int(parts[1]), covered >= 0,
                executable >= 0
            else { return nil }
            return (String(key.dropFirst(factPrefix.count)), covered, executable)
        }.sorted { $0.name < $1.name }
    }
}

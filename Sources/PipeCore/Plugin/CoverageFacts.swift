/// A layer's measured line coverage as attempt facts (`coverage.Reader.app` = `145/200`): facts are what the store
/// keeps of every attempt, so reports, the web page and the next run of a branch read coverage from them.
public enum CoverageFacts {
    /// The prefix of the facts that carry a target's lines.
    public static let prefix = "coverage."

    /// One target's lines.
    public struct Target: Sendable, Equatable {
        /// The product name as the coverage report gives it (`Reader.app`).
        public var name: String
        public var coveredLines: Int
        public var executableLines: Int

        public init(name: String, coveredLines: Int, executableLines: Int) {
            self.name = name
            self.coveredLines = coveredLines
            self.executableLines = executableLines
        }

        /// Covered lines in percent (0 for a target without executable lines).
        public var percent: Double {
            executableLines == 0 ? 0 : Double(coveredLines) * 100 / Double(executableLines)
        }
    }

    /// The facts for `targets`; the first of two with one name wins.
    public static func facts(_ targets: [Target]) -> [String: String] {
        Dictionary(
            targets.map { (prefix + $0.name, "\($0.coveredLines)/\($0.executableLines)") },
            uniquingKeysWith: { first, _ in first })
    }

    /// The targets of `facts`, by name; a fact that is not `covered/executable` with covered ≤ executable is not
    /// coverage and is left out.
    public static func targets(in facts: [String: String]) -> [Target] {
        facts.compactMap { key, value -> Target? in
            guard key.hasPrefix(prefix), key.count > prefix.count else { return nil }
            let parts = value.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let covered = Int(parts[0]), let executable = Int(parts[1]), covered >= 0,
                covered <= executable
            else { return nil }
            return Target(name: String(key.dropFirst(prefix.count)), coveredLines: covered, executableLines: executable)
        }.sorted { $0.name < $1.name }
    }

    /// The coverage of `layer`'s last attempt that measured any.
    public static func targets(of layer: RunRecord.LayerRecord) -> [Target] {
        for attempt in layer.attempts.reversed() {
            let targets = targets(in: attempt.facts)
            if !targets.isEmpty { return targets }
        }
        return []
    }
}

/// Where a run's code comes from, as its trigger knows it.
public enum CodeOrigin: Sendable, Equatable {
    /// The pipeline's repository as the project names it: the project's own, or a `repository.url` written in the
    /// pipeline file.
    case project
    /// A source the project does not name (a fork's pull request, a repository URL a request's parameter chose);
    /// the text says which, for messages.
    case outside(String)

    /// The levels this origin's code can have before its commit is known.
    public func possibleLevels(trustedRefs: [TrustedRefPattern]) -> Set<TrustLevel> {
        switch self {
        case .outside: [.untrusted]
        case .project: trustedRefs.isEmpty ? [.trusted] : [.trusted, .release]
        }
    }
}

/// A run's code level and why it has it (recorded in the run record).
public struct CodeTrust: Sendable, Equatable, Codable {
    public var level: TrustLevel
    /// e.g. `commit 3f2a9c1b0d4e is reachable from refs/heads/main`.
    public var reason: String

    public init(level: TrustLevel, reason: String) {
        self.level = level
        self.reason = reason
    }

    /// The level of `commit` from `origin`: `release` when it is reachable from a protected ref (`reachableFrom`,
    /// the first one found), `trusted` from the project otherwise, `untrusted` from anywhere else. A fork's commit
    /// stays untrusted even when it is reachable from a ref of the fork's that the pattern names.
    public static func decide(
        origin: CodeOrigin, commit: String, reachableFrom: String?, trustedRefs: [TrustedRefPattern]
    ) -> CodeTrust {
        let short = String(commit.prefix(12))
        switch origin {
        case .outside(let source):
            return CodeTrust(
                level: .untrusted, reason: "commit \(short) comes from \(source), which the project does not name")
        case .project:
            if let reachableFrom {
                return CodeTrust(level: .release, reason: "commit \(short) is reachable from \(reachableFrom)")
            }
            guard !trustedRefs.isEmpty else {
                return CodeTrust(
                    level: .trusted,
                    reason: "commit \(short) is from the project's repository; project.yml lists no trusted-refs")
            }
            let patterns = trustedRefs.map(\.text).joined(separator: ", ")
            return CodeTrust(level: .trusted, reason: "commit \(short) is not reachable from \(patterns)")
        }
    }
}

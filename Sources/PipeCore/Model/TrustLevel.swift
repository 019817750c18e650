/// How far a run's code, or a host that runs code, is trusted (docs/security.md, "Trust levels").
///
/// A host account persists between runs, so what one run's code leaves there reaches every later run on that host:
/// code of one level runs only on hosts of the level that admits it.
public enum TrustLevel: String, Sendable, Equatable, CaseIterable, Codable {
    /// Code: from a source the project does not name (a fork's pull request). Host: runs only such code.
    case untrusted
    /// Code: from the project's own repository. Host (the default): runs trusted and release code.
    case trusted
    /// Code: a commit reachable from a protected ref (`trusted-refs:`). Host: runs only release code, and is the
    /// only kind of host that may hold signing material.
    case release

    /// Whether a host of this level may run code of `code`'s level.
    public func hostRuns(_ code: TrustLevel) -> Bool {
        switch self {
        case .untrusted: code == .untrusted
        case .trusted: code == .trusted || code == .release
        case .release: code == .release
        }
    }

    /// The host levels that run code of this level, for messages.
    public var hostLevelsRunningIt: [TrustLevel] { TrustLevel.allCases.filter { $0.hostRuns(self) } }
}

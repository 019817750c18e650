/// The project file (`project.yml` in the project folder): what the project declares about itself.
public struct ProjectConfig: Sendable, Equatable {
    /// Protected refs: a commit reachable from one of them is `release` code.
    public var trustedRefs: [TrustedRefPattern]

    public init(trustedRefs: [TrustedRefPattern] = []) {
        self.trustedRefs = trustedRefs
    }
}

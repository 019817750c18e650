/// A repository on a forge, as its API addresses it: GitHub and Gitea by owner and name, GitLab by its project's
/// full path (`group/subgroup/project`, one encoded segment) or its numeric id.
public struct ForgeRepository: Sendable, Equatable {
    public var forge: ForgeKind
    /// The owner or, on GitLab, the namespace path (which may hold `/` for subgroups).
    public var owner: String
    public var name: String
    /// GitLab's numeric project id, used instead of the path when known.
    public var gitlabProjectID: Int?

    public init(forge: ForgeKind, owner: String, name: String, gitlabProjectID: Int? = nil) {
        self.forge = forge
        self.owner = owner
        self.name = name
        self.gitlabProjectID = gitlabProjectID
    }

    /// The path segments that lead to the repository: `repos/<owner>/<name>` or `projects/<id or path>`.
    var segments: [ForgePath.Segment] {
        switch forge {
        case .github, .gitea:
            return [.fixed("repos"), .value("owner", owner), .value("repository", name)]
        case .gitlab:
            if let id = gitlabProjectID { return [.fixed("projects"), .number("project id", id)] }
            return [.fixed("projects"), .value("project path", owner + "/" + name)]
        }
    }
}

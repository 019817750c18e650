/// The requests for commit statuses, the pull request comment and the pull request's head, on one repository.
/// Each builder only makes a value; nothing is sent here.
public struct ForgeAPI: Sendable {
    public let repository: ForgeRepository
    public var forge: ForgeKind { repository.forge }

    public init(repository: ForgeRepository) {
        self.repository = repository
    }

    /// The largest page the forges serve (GitHub and GitLab: 100).
    public static let pageSize = 100

    // MARK: Commit statuses

    /// Sets `report`'s gate on `sha`: GitHub and Gitea `POST /repos/{o}/{r}/statuses/{sha}`, GitLab
    /// `POST /projects/:id/statuses/:sha` (with `name` for the context). On GitLab, `branch` (a merge request's
    /// source branch) picks the pipeline the status joins when the commit is on several refs; a name GitLab's
    /// 255-character limit would refuse is left out.
    public func createStatus(
        _ report: ForgeGateReport, sha: CommitSHA, baseURL: String? = nil, branch: String? = nil
    ) throws -> ForgeRequest {
        let path = try ForgePath.make(repository.segments + [.fixed("statuses"), .sha(sha)])
        var body: [(String, ForgeJSON)] = [
            ("state", .string(report.statusState(for: forge))),
            (forge == .gitlab ? "name" : "context", .string(report.context)),
            ("description", .string(report.description(for: forge))),
        ]
        if let url = report.targetURL(baseURL: baseURL, for: forge) { body.append(("target_url", .string(url))) }
        if forge == .gitlab, let branch, !branch.isEmpty, branch.unicodeScalars.count <= 255 {
            body.append(("ref", .string(branch)))
        }
        return ForgeRequest(
            method: .post, path: path, headers: ForgeAPI.headers(forge, hasBody: true), body: .object(body))
    }

    // MARK: The pull request comment

    /// Posts a new comment: GitHub and Gitea `POST /repos/{o}/{r}/issues/{n}/comments`, GitLab
    /// `POST /projects/:id/merge_requests/:iid/notes`.
    public func createComment(pullRequest: Int, body: String) throws -> ForgeRequest {
        ForgeRequest(
            method: .post, path: try commentsPath(pullRequest: pullRequest),
            headers: ForgeAPI.headers(forge, hasBody: true), body: .object([("body", .string(body))]))
    }

    /// One page of the pull request's comments, oldest first (Gitea serves them all at once).
    public func listComments(pullRequest: Int, page: Int = 1) throws -> ForgeRequest {
        let query: [(String, String)]
        switch forge {
        case .github: query = [("per_page", String(ForgeAPI.pageSize)), ("page", String(max(1, page)))]
        case .gitea: query = []
        case .gitlab:
            query = [
                ("sort", "asc"), ("order_by", "created_at"), ("per_page", String(ForgeAPI.pageSize)),
                ("page", String(max(1, page))),
            ]
        }
        return ForgeRequest(
            method: .get, path: try commentsPath(pullRequest: pullRequest), query: query,
            headers: ForgeAPI.headers(forge, hasBody: false))
    }

    /// Replaces a comment's body: GitHub and Gitea `PATCH /repos/{o}/{r}/issues/comments/{id}`, GitLab
    /// `PUT /projects/:id/merge_requests/:iid/notes/:note_id`.
    public func editComment(id: Int, pullRequest: Int, body: String) throws -> ForgeRequest {
        let path: String
        switch forge {
        case .github, .gitea:
            path = try ForgePath.make(
                repository.segments + [.fixed("issues"), .fixed("comments"), .number("comment id", id)])
        case .gitlab:
            path = try commentsPath(pullRequest: pullRequest) + ForgePath.make([.number("note id", id)])
        }
        return ForgeRequest(
            method: forge == .gitlab ? .put : .patch, path: path, headers: ForgeAPI.headers(forge, hasBody: true),
            body: .object([("body", .string(body))]))
    }

    // MARK: The pull request's head

    /// The pull request as the forge has it now (`head.sha`; GitLab `sha`), to compare before superseding.
    public func pullRequest(_ number: Int) throws -> ForgeRequest {
        let path: String
        switch forge {
        case .github, .gitea:
            path = try ForgePath.make(repository.segments + [.fixed("pulls"), .number("pull request", number)])
        case .gitlab:
            path = try ForgePath.make(
                repository.segments + [.fixed("merge_requests"), .number("merge request iid", number)])
        }
        return ForgeRequest(method: .get, path: path, headers: ForgeAPI.headers(forge, hasBody: false))
    }

    private func commentsPath(pullRequest: Int) throws -> String {
        switch forge {
        case .github, .gitea:
            return try ForgePath.make(
                repository.segments + [.fixed("issues"), .number("pull request", pullRequest), .fixed("comments")])
        case .gitlab:
            return try ForgePath.make(
                repository.segments + [
                    .fixed("merge_requests"), .number("merge request iid", pullRequest), .fixed("notes"),
                ])
        }
    }

    /// What every request to `forge` carries besides its credential: GitHub asks for a `User-Agent`, its media
    /// type and an API version.
    static func headers(_ forge: ForgeKind, hasBody: Bool) -> [(String, String)] {
        var headers: [(String, String)] = [("User-Agent", "pipe")]
        switch forge {
        case .github:
            headers += [("Accept", "application/vnd.github+json"), ("X-GitHub-Api-Version", "2022-11-28")]
        case .gitea, .gitlab:
            headers.append(("Accept", "application/json"))
        }
        if hasBody { headers.append(("Content-Type", "application/json")) }
        return headers
    }
}

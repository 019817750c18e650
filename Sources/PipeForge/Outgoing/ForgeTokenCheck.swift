import Foundation

/// What `pipe forge check` asks a forge to tell whether its token works and may post statuses, checks and
/// comments on a repository, and how it reads the answers.
///
/// - GitHub, a token: `GET /repos/{o}/{r}` (its `permissions.push`, and `X-OAuth-Scopes` for a classic token)
///   and `GET /user` (who Pipe's comments are by). Checks need an app.
/// - GitHub, an app: `GET /app` (the app's permissions and slug: comments are by `<slug>[bot]`) and
///   `GET /repos/{o}/{r}/installation` (the installation's permissions), both signed with the app's JWT.
/// - Gitea/Forgejo: `GET /repos/{o}/{r}` (`permissions.push`) and `GET /user`. No checks.
/// - GitLab: `GET /personal_access_tokens/self` (its `scopes`, `active`), `GET /projects/:id` (the access level:
///   Developer, 30, sets statuses; Reporter, 20, comments) and `GET /user`. No checks.
public struct ForgeTokenCheck: Sendable {
    public var repository: ForgeRepository
    /// Check as a GitHub App (the requests must then be signed with the app's JWT).
    public var asGitHubApp: Bool

    public init(repository: ForgeRepository, asGitHubApp: Bool = false) {
        self.repository = repository
        self.asGitHubApp = asGitHubApp
    }

    public enum Question: String, Sendable, CaseIterable {
        case repository
        case identity
        case app
        case installation
        case tokenScopes = "token-scopes"
    }

    /// The requests to send, each with the question it answers (to be authorized by the caller).
    public func requests() throws -> [(Question, ForgeRequest)] {
        let forge = repository.forge
        func get(_ path: String) -> ForgeRequest {
            ForgeRequest(method: .get, path: path, headers: ForgeAPI.headers(forge, hasBody: false))
        }
        let repo = get(try ForgePath.make(repository.segments))
        let user = get("/user")
        switch forge {
        case .github where asGitHubApp:
            return [
                (.app, get("/app")),
                (.installation, get(try ForgePath.make(repository.segments + [.fixed("installation")]))),
            ]
        case .github, .gitea: return [(.repository, repo), (.identity, user)]
        case .gitlab:
            return [(.tokenScopes, get("/personal_access_tokens/self")), (.repository, repo), (.identity, user)]
        }
    }

    /// The verdict on what each question was answered; a question without an answer counts as not reached.
    public func judge(_ answers: [Question: ForgeResponse]) -> ForgeTokenReport {
        switch repository.forge {
        case .github where asGitHubApp: return judgeApp(answers)
        case .github, .gitea: return judgeToken(answers)
        case .gitlab: return judgeGitLab(answers)
        }
    }

    private func unauthorized(_ answers: [Question: ForgeResponse]) -> ForgeResponse? {
        answers.values.first { $0.status == 401 }
    }

    private func judgeToken(_ answers: [Question: ForgeResponse]) -> ForgeTokenReport {
        let forge = repository.forge
        var report = ForgeTokenReport(forge: forge)
        if let refused = unauthorized(answers) {
            report.problem = "the token was refused: \(ForgeFailure(forge: forge, response: refused).description)"
            return report
        }
        report.tokenWorks = answers[.identity]?.status == 200 || answers[.repository]?.status == 200
        if let user = answers[.identity]?.json, answers[.identity]?.status == 200 {
            report.identity = ForgeAuthor(id: user["id"]?.intValue, login: user["login"]?.stringValue ?? "")
        }
        guard let repo = answers[.repository], repo.status == 200, let json = repo.json else {
            let why = answers[.repository].map { ForgeFailure(forge: forge, response: $0).description } ?? "not asked"
            report.problem = "the repository cannot be read with this token (\(why))"
            report.statuses = .no("the repository is not visible to the token")
            report.comments = .no("the repository is not visible to the token")
            return report
        }
        let push = json["permissions"]?["push"]?.boolValue
        let scopes = repo.header("X-OAuth-Scopes").map(ForgeTokenCheck.scopeList)
        switch (push, scopes) {
        case (false, _):
            report.statuses = .no("the token's user cannot write to the repository (permissions.push is false)")
            report.comments = .no("the token's user cannot write to the repository (permissions.push is false)")
        case (_, .some(let scopes)) where forge == .github:
            report.statuses =
                scopes.contains("repo") || scopes.contains("repo:status")
                ? .yes : .no("the classic token lacks the `repo:status` (or `repo`) scope")
            report.comments =
                scopes.contains("repo") || scopes.contains("public_repo")
                ? .yes : .no("the classic token lacks the `repo` (or `public_repo`) scope")
        case (true, _):
            let note =
                forge == .github
                ? "write access; a fine-grained token also needs Commit statuses and Pull requests: write"
                : "write access; a scoped token also needs write:repository and write:issue"
            report.statuses = .unknown(note)
            report.comments = .unknown(note)
        case (nil, _):
            report.statuses = .unknown("the answer holds no permissions")
            report.comments = .unknown("the answer holds no permissions")
        }
        report.checks = forge == .github ? .no("check runs need a GitHub App") : .no("Gitea has no checks API")
        return report
    }

    private func judgeApp(_ answers: [Question: ForgeResponse]) -> ForgeTokenReport {
        var report = ForgeTokenReport(forge: .github)
        if let refused = unauthorized(answers) {
            report.problem =
                "the app's JWT was refused (check the app id and its private key): "
                + ForgeFailure(forge: .github, response: refused).description
            return report
        }
        if let app = answers[.app], app.status == 200, let json = app.json {
            report.tokenWorks = true
            if let slug = json["slug"]?.stringValue { report.identity = ForgeAuthor(id: nil, login: slug + "[bot]") }
        }
        guard let installation = answers[.installation], installation.status == 200, let json = installation.json else {
            let why =
                answers[.installation].map { ForgeFailure(forge: .github, response: $0).description } ?? "not asked"
            report.problem = "the app is not installed on the repository (\(why))"
            report.statuses = .no("not installed")
            report.checks = .no("not installed")
            report.comments = .no("not installed")
            return report
        }
        report.installationID = json["id"]?.intValue
        let permissions = json["permissions"]
        func writes(_ name: String) -> ForgeTokenReport.Finding {
            permissions?[name]?.stringValue == "write"
                ? .yes : .no("the installation lacks the \(name): write permission")
        }
        report.statuses = writes("statuses")
        report.checks = writes("checks")
        let pulls = writes("pull_requests")
        report.comments = pulls == .yes ? .yes : writes("issues") == .yes ? .yes : pulls
        return report
    }

    private func judgeGitLab(_ answers: [Question: ForgeResponse]) -> ForgeTokenReport {
        var report = ForgeTokenReport(forge: .gitlab)
        if let refused = unauthorized(answers) {
            report.problem = "the token was refused: \(ForgeFailure(forge: .gitlab, response: refused).description)"
            return report
        }
        report.tokenWorks = answers.values.contains { $0.status == 200 }
        if let user = answers[.identity]?.json, answers[.identity]?.status == 200 {
            report.identity = ForgeAuthor(id: user["id"]?.intValue, login: user["username"]?.stringValue ?? "")
        }
        report.checks = .no("GitLab has no checks API; statuses are used")
        let scopes = answers[.tokenScopes].flatMap { $0.status == 200 ? $0.json?["scopes"]?.arrayValue : nil }?
            .compactMap(\.stringValue)
        if let scopes, !scopes.contains("api") {
            report.statuses = .no("the token lacks the `api` scope")
            report.comments = .no("the token lacks the `api` scope")
            return report
        }
        guard let project = answers[.repository], project.status == 200, let json = project.json else {
            let why = answers[.repository].map { ForgeFailure(forge: .gitlab, response: $0).description } ?? "not asked"
            report.problem = "the project cannot be read with this token (\(why))"
            report.statuses = .no("the project is not visible to the token")
            report.comments = .no("the project is not visible to the token")
            return report
        }
        let access = [json["permissions"]?["project_access"], json["permissions"]?["group_access"]]
            .compactMap { $0?["access_level"]?.intValue }.max()
        guard let access else {
            report.statuses = .unknown("the answer holds no access level")
            report.comments = .unknown("the answer holds no access level")
            return report
        }
        report.statuses = access >= 30 ? .yes : .no("statuses need the Developer role (30); the token has \(access)")
        report.comments = access >= 20 ? .yes : .no("comments need the Reporter role (20); the token has \(access)")
        return report
    }

    static func scopeList(_ header: String) -> [String] {
        header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// `pipe forge check`'s findings for one forge and repository.
public struct ForgeTokenReport: Sendable, Equatable {
    public enum Finding: Sendable, Equatable {
        case yes
        case no(String)
        /// The forge does not say (a fine-grained token's permissions); the first post will tell.
        case unknown(String)
    }

    public var forge: ForgeKind
    public var tokenWorks = false
    /// Who Pipe's comments are by, to find them again.
    public var identity: ForgeAuthor?
    public var installationID: Int?
    public var statuses: Finding = .unknown("not checked")
    public var checks: Finding = .unknown("not checked")
    public var comments: Finding = .unknown("not checked")
    /// The first thing that stopped the check, with what to do.
    public var problem: String?

    public init(forge: ForgeKind) {
        self.forge = forge
    }
}

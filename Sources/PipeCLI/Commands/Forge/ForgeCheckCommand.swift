import Foundation
import PipeBasics
import PipeCore
import PipeForge

/// `pipe forge check`: for each forge of `forges.yml`, whether its token (or GitHub App) works and may post the
/// statuses, checks and comments Pipe posts, and whether its webhook secret can be read. No secret is printed.
enum ForgeCheckCommand {
    static let spec = CommandSpec(
        name: "check",
        summary: "Check each forge's token (or GitHub App), its permissions, and its webhook secret.",
        discussion: """
            For each forge of forges.yml (or those named), asks the forge what the configured token may do \
            (GitHub and Gitea: the repository's permissions and the token's scopes; GitLab: the token's scopes \
            and the project role; a GitHub App: the installation's permissions) and reads the webhook secret \
            where forges.yml says. Prints one block per forge: whether the token works and as whom, whether \
            statuses, checks and comments can be posted (yes, no with why, or unknown when the forge does not \
            say), and the first problem with what to do. A token or secret is never printed.

            Exits 0 when every forge can be used, 3 when one cannot (the token is refused, the repository cannot \
            be read, statuses cannot be posted, or the webhook secret cannot be read). --json prints a JSON \
            array, one object per forge.

            Examples:
              pipe forge check
              pipe forge check github --json
            """,
        arguments: [.variadic("forge", help: "Forges of forges.yml to check (default: all).")],
        options: [.flag("json", help: "Print a JSON array instead of the blocks.")])

    /// What was found for one forge.
    struct Result {
        var forge: ForgeConfig
        var asApp: Bool
        var report: ForgeTokenReport
        /// Why the webhook secret cannot be read, `nil` when it can.
        var secretProblem: String?

        /// Statuses are what branch protection needs; checks and comments count where forges.yml uses them.
        var problems: [String] {
            var found: [String] = []
            if let problem = report.problem { found.append(problem) }
            if !report.tokenWorks && report.problem == nil { found.append("the token does not work") }
            if case .no(let why) = report.statuses, !(asApp && forge.checksReplaceStatuses) {
                found.append("statuses: \(why)")
            }
            if forge.checksReplaceStatuses, case .no(let why) = report.checks { found.append("checks: \(why)") }
            if forge.comment, case .no(let why) = report.comments { found.append("comments: \(why)") }
            if let secretProblem { found.append(secretProblem) }
            return found
        }

        var usable: Bool { problems.isEmpty }
    }

    static func execute(_ session: ForgeSession) throws -> Int32 {
        let names = session.arguments.variadic("forge")
        let forges = try names.isEmpty ? session.forges.forges : names.map { try session.forge($0) }
        let results = forges.map { check($0, session: session) }
        if session.arguments.flag("json") {
            session.console.out(try session.json(results.map(json)))
        } else {
            for (index, result) in results.enumerated() {
                if index > 0 { session.console.out("\n") }
                session.console.out(text(result))
            }
        }
        let unusable = results.filter { !$0.usable }.map(\.forge.name)
        guard unusable.isEmpty else {
            session.console.err(
                "cannot be used: \(unusable.joined(separator: ", "))"
                    + (session.arguments.flag("json") ? "" : "; see above") + "\n")
            return PipeExitCode.environmentFailure.rawValue
        }
        return 0
    }

    static func check(_ forge: ForgeConfig, session: ForgeSession) -> Result {
        let asApp = forge.kind == .github && forge.app != nil
        var secretProblem: String?
        do {
            _ = try session.secrets.webhookVerifier(for: forge)
        } catch {
            secretProblem = "webhook secret: \(error)"
        }
        var report = ForgeTokenReport(forge: forge.kind)
        do {
            let credential = try self.credential(of: forge, asApp: asApp, session: session)
            let check = ForgeTokenCheck(repository: try forge.apiRepository, asGitHubApp: asApp)
            var answers: [ForgeTokenCheck.Question: ForgeResponse] = [:]
            for (question, request) in try check.requests() {
                switch session.transport(request.authorized(by: credential), forge.apiURL) {
                case .success(let response): answers[question] = response
                case .failure(let failure):
                    throw RequestError("\(forge.apiURL.absoluteString) cannot be reached: \(failure.message)")
                }
            }
            report = check.judge(answers)
        } catch {
            report.problem = "\(error)"
        }
        return Result(forge: forge, asApp: asApp, report: report, secretProblem: secretProblem)
    }

    private static func credential(of forge: ForgeConfig, asApp: Bool, session: ForgeSession) throws
        -> ForgeCredential
    {
        guard asApp, let app = forge.app else {
            return try session.credentials.credential(of: forge)
        }
        let pem = try session.secrets.read(
            app.privateKey, setting: "forges.\(forge.name).app.private-key", multiline: true)
        return try GitHubApp(appID: String(app.appID), privateKeyPEM: pem).credential(at: Date())
    }

    private static func word(_ finding: ForgeTokenReport.Finding) -> String {
        switch finding {
        case .yes: "yes"
        case .no(let why): "no: \(why)"
        case .unknown(let why): "unknown: \(why)"
        }
    }

    static func text(_ result: Result) -> String {
        let report = result.report
        var lines = ["\(result.forge.name) (\(result.forge.kind.rawValue), \(result.forge.repository))"]
        var token = result.asApp ? "GitHub App \(result.forge.app?.appID ?? 0)" : "token"
        token += report.tokenWorks ? " works" : " does not work"
        if let identity = report.identity, !identity.login.isEmpty { token += " as \(identity.login)" }
        lines.append("  \(token)")
        lines.append("  statuses: \(word(report.statuses))")
        lines.append("  checks:   \(word(report.checks))")
        lines.append("  comments: \(word(report.comments))")
        lines.append("  webhook secret: \(result.secretProblem == nil ? "readable" : "cannot be read")")
        let problems = result.problems
        lines.append(problems.isEmpty ? "  usable" : "  cannot be used: " + problems.joined(separator: "; "))
        // What a forge answered ends up in findings and problems: each line is shown escaped.
        return lines.map { DisplayEscaping.escaped($0) }.joined(separator: "\n") + "\n"
    }

    private static func json(_ finding: ForgeTokenReport.Finding) -> [String: Any] {
        switch finding {
        case .yes: ["allowed": "yes"]
        case .no(let why): ["allowed": "no", "why": why]
        case .unknown(let why): ["allowed": "unknown", "why": why]
        }
    }

    static func json(_ result: Result) -> [String: Any] {
        let report = result.report
        var object: [String: Any] = [
            "forge": result.forge.name, "kind": result.forge.kind.rawValue, "repository": result.forge.repository,
            "credential": result.asApp ? "app" : "token", "token_works": report.tokenWorks,
            "statuses": json(report.statuses), "checks": json(report.checks), "comments": json(report.comments),
            "webhook_secret_readable": result.secretProblem == nil, "usable": result.usable,
            "problems": result.problems,
        ]
        if let identity = report.identity { object["identity"] = identity.login }
        if let id = report.installationID { object["installation_id"] = id }
        return object
    }
}

import Foundation
import PipeCore

/// Commit statuses through the outbox: a gate's state becomes the one request that sets it, written to the run store
/// by whichever process decided it (the controller, `pipe signoff`, chat-ops) and sent by a controller or
/// `pipe forge send`. A status is a state, so sending it twice changes nothing.
public enum ForgeStatusOutbox {
    public static let kind = "status"

    /// `status <forge> <repository> <sha> <context>`: a target whose newest state alone is sent.
    public static func target(forge: String, repository: String, sha: CommitSHA, context: String) -> String {
        "status \(forge) \(repository) \(sha.value) \(context)"
    }

    /// The outbox entry that sets `report` on `sha` in `forge`'s repository.
    public static func draft(
        _ report: ForgeGateReport, sha: CommitSHA, forge: ForgeConfig, baseURL: URL?, branch: String? = nil,
        at date: Date
    ) throws -> ForgeUpdate.Draft {
        let request = try ForgeAPI(repository: try forge.apiRepository).createStatus(
            report, sha: sha, baseURL: baseURL?.absoluteString, branch: branch)
        return ForgeUpdate.Draft(
            forge: forge.name,
            target: target(forge: forge.name, repository: forge.repository, sha: sha, context: report.context),
            kind: kind, payload: StoredForgeRequest.encode(request), runID: report.runID?.value, createdAt: date)
    }
}

extension ForgeConfig {
    /// The repository as the forge's API addresses it: GitHub and Gitea `owner/name`, GitLab a path or an id.
    public var apiRepository: ForgeRepository {
        get throws {
            if kind == .gitlab, let id = Int(repository) {
                return ForgeRepository(forge: kind, owner: "", name: "", gitlabProjectID: id)
            }
            guard let slash = repository.lastIndex(of: "/") else {
                throw ForgeRequestError.badPathValue(name: "repository (owner/name)", value: repository)
            }
            return ForgeRepository(
                forge: kind, owner: String(repository[..<slash]),
                name: String(repository[repository.index(after: slash)...]))
        }
    }
}

/// The forges Pipe reports to and takes webhooks from. Forgejo speaks Gitea's API and webhooks, so it is `gitea`.
public enum ForgeKind: String, Sendable, CaseIterable, Codable {
    case github
    case gitea
    case gitlab
}

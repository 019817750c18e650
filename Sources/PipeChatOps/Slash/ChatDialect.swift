/// How a chat proves a request is its own.
public enum ChatDialect: String, Sendable, Equatable, CaseIterable {
    /// Slack: `X-Slack-Signature`, an HMAC-SHA256 of the timestamp and the raw body under the signing secret.
    case slack
    /// Mattermost: the slash command's token, sent in the form's `token` field (or `Authorization: Token …`).
    case mattermost
}

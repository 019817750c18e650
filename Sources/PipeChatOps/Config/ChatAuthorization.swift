import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Who may do what from the chat: chat users and channels, by ID, mapped to the pipelines they may run and (users
/// only) the checklist layers they may sign off.
///
/// Anyone named here, or writing in a channel named here, may read (status, runs, gate, hosts). Running needs a
/// pipeline pattern on the user or the channel; signing needs a `pipeline/layer` pattern on the user: a release
/// checklist is signed by the people the team names, never by whoever is in a channel. Patterns are shell
/// globs (`*`, `app-*`, `app-intents/shortcuts`, `*/device`).
public struct ChatAuthorization: Sendable, Equatable {
    /// What one user or channel is allowed.
    public struct Grant: Sendable, Equatable {
        /// A name for messages and the audit log.
        public var name: String?
        /// Pipelines it may run.
        public var run: [String]
        /// `pipeline/layer` it may sign off (ignored on channels).
        public var signoff: [String]

        public init(name: String? = nil, run: [String] = [], signoff: [String] = []) {
            self.name = name
            self.run = run
            self.signoff = signoff
        }
    }

    public var users: [String: Grant]
    public var channels: [String: Grant]

    public init(users: [String: Grant] = [:], channels: [String: Grant] = [:]) {
        self.users = users
        self.channels = channels
    }

    /// Whether the user (or the channel) is named at all: the right to read.
    public func mayRead(user: String, channel: String) -> Bool {
        users[user] != nil || channels[channel] != nil
    }

    public func mayRun(_ pipeline: String, user: String, channel: String) -> Bool {
        let patterns = (users[user]?.run ?? []) + (channels[channel]?.run ?? [])
        return patterns.contains { Self.matches($0, pipeline) }
    }

    public func maySignoff(pipeline: String, layer: String, user: String) -> Bool {
        (users[user]?.signoff ?? []).contains { Self.matches($0, "\(pipeline)/\(layer)") }
    }

    /// Why `user` in `channel` may not run `pipeline`: what is missing, for the refusal.
    public func runRefusal(_ pipeline: String, user: String, channel: String, who: String) -> String {
        var text = "\(who) may not run \(pipeline): neither the user nor channel \(channel) is allowed it"
        let own = users[user]?.run ?? []
        if !own.isEmpty { text += " (the user may run \(own.joined(separator: ", ")))" }
        return text + "; an admin adds `\(pipeline)` to `run:` under chatops.authorization.users.\(user)"
            + " or .channels.\(channel)"
    }

    public func signoffRefusal(pipeline: String, layer: String, user: String, who: String) -> String {
        var text = "\(who) may not sign off \(pipeline)/\(layer)"
        let own = users[user]?.signoff ?? []
        text += own.isEmpty ? " (the user may sign nothing)" : " (the user may sign \(own.joined(separator: ", ")))"
        return text + "; sign-offs are given per user: an admin adds `\(pipeline)/\(layer)` to `signoff:` under "
            + "chatops.authorization.users.\(user)"
    }

    public func readRefusal(user: String, channel: String, who: String) -> String {
        "\(who) in channel \(channel) is not named in chatops.authorization; an admin adds the user under `users:` "
            + "or the channel under `channels:`"
    }

    static func matches(_ pattern: String, _ text: String) -> Bool {
        fnmatch(pattern, text, 0) == 0
    }
}

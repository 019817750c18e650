import Foundation

/// One request to the chat-ops endpoint as the audit log keeps it: allowed or not, who (when the request proved
/// it came from the chat), what, and what came of it. Never a secret or a signature.
public struct ChatAuditEntry: Sendable, Equatable, Codable {
    /// How the request ended.
    public enum Decision: String, Sendable, Codable {
        /// Done: a run queued, a sign-off recorded, a question answered.
        case accepted
        /// Refused: not verified, not authorized, over a limit, or not understood.
        case refused
        /// Understood and allowed, but the backend could not do it (no such run, the sign-off lacked a field…).
        case failed
    }

    public var at: Date
    /// Who sent it: the peer, or the client's address a believed proxy forwarded.
    public var remoteAddress: String
    /// The proxy's own address, when `remoteAddress` is one it forwarded.
    public var proxy: String?
    /// The HTTP status answered; `nil` when the connection was cut off without an answer.
    public var status: Int?
    public var decision: Decision
    /// Why, in words.
    public var reason: String
    /// A refusal's short fixed label (`bad signature`, `wrong path`…), what refusals are counted by.
    public var kind: String?
    /// For an entry that stands for several refused requests: how many.
    public var count: Int?
    /// Whether the request proved it came from the chat; the user fields are only filled when it did.
    public var verified: Bool
    public var userID: String?
    public var userName: String?
    public var channelID: String?
    public var teamID: String?
    /// The command word (`run`, `signoff`…), when understood.
    public var command: String?
    /// What was typed after the slash command.
    public var text: String?
    /// The run queued, signed or asked about.
    public var runID: String?

    public init(
        at: Date, remoteAddress: String, status: Int?, decision: Decision, reason: String, verified: Bool = false,
        userID: String? = nil, userName: String? = nil, channelID: String? = nil, teamID: String? = nil,
        command: String? = nil, text: String? = nil, runID: String? = nil, kind: String? = nil, count: Int? = nil,
        proxy: String? = nil
    ) {
        self.at = at
        self.remoteAddress = remoteAddress
        self.kind = kind
        self.count = count
        self.proxy = proxy
        self.status = status
        self.decision = decision
        self.reason = reason
        self.verified = verified
        self.userID = userID
        self.userName = userName
        self.channelID = channelID
        self.teamID = teamID
        self.command = command
        self.text = text
        self.runID = runID
    }
}

extension ChatAuditEntry {
    /// The entry with every text field cut to `fieldBytes` bytes of UTF-8 (marked, with the length it had), so
    /// what a sender chose takes bounded room.
    public func bounded(fieldBytes: Int) -> ChatAuditEntry {
        var entry = self
        let cut = { (text: String) in AuditText.cut(text, to: fieldBytes) }
        entry.remoteAddress = cut(remoteAddress)
        entry.proxy = proxy.map(cut)
        entry.reason = cut(reason)
        entry.kind = kind.map(cut)
        entry.userID = userID.map(cut)
        entry.userName = userName.map(cut)
        entry.channelID = channelID.map(cut)
        entry.teamID = teamID.map(cut)
        entry.command = command.map(cut)
        entry.text = text.map(cut)
        entry.runID = runID.map(cut)
        return entry
    }
}

/// Text a sender chose, made to take bounded room in the audit log.
enum AuditText {
    /// `text` when it has at most `bytes` bytes of UTF-8; else its longest prefix of whole characters that leaves
    /// room for the marker `…[cut: N bytes]`.
    static func cut(_ text: String, to bytes: Int) -> String {
        let length = text.utf8.count
        guard length > bytes else { return text }
        let marker = "…[cut: \(length) bytes]"
        let room = max(0, bytes - marker.utf8.count)
        var kept = 0
        var end = text.startIndex
        for index in text.indices {
            let size = text[index].utf8.count
            guard kept + size <= room else { break }
            kept += size
            end = text.index(after: index)
        }
        return String(text[..<end]) + marker
    }
}

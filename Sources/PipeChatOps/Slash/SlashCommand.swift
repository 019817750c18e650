/// A slash command as the chat sends it (Slack's fields; Mattermost sends the same ones).
public struct SlashCommand: Sendable, Equatable {
    /// The command as typed, e.g. `/pipe`.
    public var command: String
    /// Everything after the command.
    public var text: String
    public var userID: String
    public var userName: String
    public var channelID: String
    public var teamID: String
    /// Where later messages about this request go (valid for 30 minutes, 5 messages on Slack).
    public var responseURL: String?

    public init(
        command: String, text: String, userID: String, userName: String, channelID: String, teamID: String,
        responseURL: String?
    ) {
        self.command = command
        self.text = text
        self.userID = userID
        self.userName = userName
        self.channelID = channelID
        self.teamID = teamID
        self.responseURL = responseURL
    }

    /// Reads the fields of a decoded form; `user_id` and `command` are required, the rest may be empty.
    public init(form: [String: String]) throws(FormDecoder.Failure) {
        var missing = ["command", "user_id"].filter { (form[$0] ?? "").isEmpty }
        if form["text"] == nil { missing.append("text") }
        guard missing.isEmpty else {
            throw FormDecoder.Failure(message: "the form lacks \(missing.joined(separator: ", "))")
        }
        self.init(
            command: form["command"] ?? "", text: form["text"] ?? "", userID: form["user_id"] ?? "",
            userName: form["user_name"] ?? "", channelID: form["channel_id"] ?? "", teamID: form["team_id"] ?? "",
            responseURL: form["response_url"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Who asked, as the run record and the audit log name them: `alice (U012ABCDEF)`.
    public var requester: String { userName.isEmpty ? userID : "\(userName) (\(userID))" }
}

import Foundation

/// One request's `response_url`: where its later messages go, and how many it may still take before it expires.
///
/// Slack accepts at most 5 messages on a response URL within 30 minutes of the command; later ones are refused, so
/// they are not sent.
public final class ResponseChannel: @unchecked Sendable {
    public let url: String
    public let expires: Date
    /// Who sees the messages: the channel, or only the person who asked.
    public let inChannel: Bool
    public let maxMessages: Int
    /// For log lines: the request's user and, once known, its run.
    public let label: String

    let lock = NSLock()
    var accepted = 0
    var pending: [Delivery] = []
    var busy = false

    init(url: String, expires: Date, inChannel: Bool, maxMessages: Int, label: String) {
        self.url = url
        self.expires = expires
        self.inChannel = inChannel
        self.maxMessages = maxMessages
        self.label = label
    }

    /// One message on its way.
    struct Delivery {
        var body: [UInt8]
        var summary: String
        var attempts = 0
        var notBefore: Date
    }
}

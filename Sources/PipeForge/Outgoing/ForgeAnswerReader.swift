import Foundation
import PipeBasics

/// Reads a forge's answer to decide what happens next: done, wait and send again (rate limits, GitHub's secondary
/// limits, 5xx, GitLab's 409 for a status update already in progress), or give up with the forge's message.
public struct ForgeAnswerReader: Sendable {
    public var forge: ForgeKind
    public var backoff: ForgeBackoff

    public init(forge: ForgeKind, backoff: ForgeBackoff = ForgeBackoff()) {
        self.forge = forge
        self.backoff = backoff
    }

    public enum Verdict: Sendable, Equatable {
        case done(ForgeResponse)
        /// Send the same request again after `seconds`.
        case retry(afterSeconds: Double, reason: String)
        case giveUp(ForgeFailure)
    }

    /// What to do after `attempt` (1 for the first send) got `response` at `now`; `random` in 0...1 draws the jitter.
    public func read(_ response: ForgeResponse, attempt: Int, now: Date, random: Double) -> Verdict {
        if (200..<300).contains(response.status) { return .done(response) }
        let failure = ForgeFailure(forge: forge, response: response)
        guard let wait = retryWait(response, failure: failure, attempt: attempt, now: now, random: random) else {
            return .giveUp(failure)
        }
        guard attempt < backoff.maxAttempts else {
            return .giveUp(failure.afterAttempts(attempt))
        }
        return .retry(afterSeconds: wait, reason: failure.description)
    }

    /// What to do when the request did not reach the forge or no answer came back (a connection refused, a timeout).
    public func readTransportFailure(_ message: String, attempt: Int, random: Double) -> Verdict {
        let failure = ForgeFailure(forge: forge, status: nil, message: ForgeFailure.bounded(message))
        guard attempt < backoff.maxAttempts else { return .giveUp(failure.afterAttempts(attempt)) }
        return .retry(afterSeconds: backoff.delay(attempt: attempt, random: random), reason: failure.description)
    }

    private func retryWait(
        _ response: ForgeResponse, failure: ForgeFailure, attempt: Int, now: Date, random: Double
    ) -> Double? {
        let status = response.status
        let limited = status == 429 || status == 403
        if limited || (500..<600).contains(status), let after = ForgeRateLimit.retryAfter(response, now: now) {
            return min(max(after, 1), backoff.longestWait)
        }
        if limited, let reset = ForgeRateLimit.exhaustedUntil(response, now: now) {
            return min(max(reset, 1), backoff.longestWait)
        }
        let message = failure.message.lowercased()
        if limited, message.contains("secondary rate limit") || message.contains("abuse") || status == 429 {
            // GitHub: without a Retry-After, wait at least a minute, longer on each retry.
            return max(ForgeRateLimit.secondaryLimitWait, backoff.delay(attempt: attempt, random: random))
        }
        if (500..<600).contains(status) || (forge == .gitlab && status == 409) {
            return backoff.delay(attempt: attempt, random: random)
        }
        return nil
    }
}

/// Exponential backoff with jitter: attempt n waits `base · 2^(n-1)`, at most `maximum`, times a factor drawn in
/// `[1 - jitter, 1]` so that many senders do not retry together.
public struct ForgeBackoff: Sendable, Equatable {
    public var base: Double
    public var maximum: Double
    public var jitter: Double
    public var maxAttempts: Int
    /// The longest a forge's own `Retry-After` or reset time is obeyed before the update is retried anyway.
    public var longestWait: Double

    public init(
        base: Double = 1, maximum: Double = 300, jitter: Double = 0.5, maxAttempts: Int = 8, longestWait: Double = 3600
    ) {
        self.base = base
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
        self.maxAttempts = maxAttempts
        self.longestWait = longestWait
    }

    /// The wait after attempt `attempt` (1-based); `random` in 0...1.
    public func delay(attempt: Int, random: Double) -> Double {
        let exponent = Double(min(max(attempt, 1) - 1, 30))
        let full = min(maximum, base * pow(2, exponent))
        return full * (1 - jitter * (1 - min(max(random, 0), 1)))
    }
}

/// The rate-limit headers of an answer.
public enum ForgeRateLimit {
    /// GitHub asks for at least a minute after a secondary limit that names no `Retry-After`.
    public static let secondaryLimitWait: Double = 60

    /// `Retry-After` in seconds, or as an HTTP date.
    public static func retryAfter(_ response: ForgeResponse, now: Date) -> Double? {
        guard let text = response.header("Retry-After")?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return nil
        }
        if let seconds = Double(text), seconds.isFinite, seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { max(0, $0.timeIntervalSince(now)) }
    }

    /// Seconds until the quota resets, when the answer says none is left (`X-RateLimit-Remaining: 0` with
    /// `X-RateLimit-Reset` in epoch seconds; GitLab also names them `RateLimit-*`).
    public static func exhaustedUntil(_ response: ForgeResponse, now: Date) -> Double? {
        let remaining = response.header("X-RateLimit-Remaining") ?? response.header("RateLimit-Remaining")
        let reset = response.header("X-RateLimit-Reset") ?? response.header("RateLimit-Reset")
        guard let remaining, Int(remaining.trimmingCharacters(in: .whitespaces)) == 0,
            let reset, let epoch = Double(reset.trimmingCharacters(in: .whitespaces))
        else { return nil }
        return max(0, epoch - now.timeIntervalSince1970) + 1
    }

    /// The least time between two requests that change something on GitHub: its guidance against secondary
    /// limits is a second between `POST`, `PATCH`, `PUT` and `DELETE` requests of one client. Reads, and the
    /// other forges, need none.
    public static func spacing(before request: ForgeRequest, forge: ForgeKind) -> Double {
        forge == .github && request.method != .get ? 1 : 0
    }

    /// How long to wait before the next request after a successful answer that used the last of the quota.
    public static func pauseAfter(_ response: ForgeResponse, now: Date) -> Double? {
        exhaustedUntil(response, now: now)
    }
}

/// A forge refused an update for good: its status and its own message, bounded and with control characters shown,
/// since the message is the forge's text about hostile values.
public struct ForgeFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var forge: ForgeKind
    /// nil when no answer came.
    public var status: Int?
    public var message: String
    public var attempts: Int?

    public init(forge: ForgeKind, status: Int?, message: String, attempts: Int? = nil) {
        self.forge = forge
        self.status = status
        self.message = message
        self.attempts = attempts
    }

    /// The failure an answer that is not a success says, its message bounded.
    public init(forge: ForgeKind, response: ForgeResponse) {
        self.init(forge: forge, status: response.status, message: ForgeFailure.message(of: response))
    }

    func afterAttempts(_ count: Int) -> ForgeFailure {
        var copy = self
        copy.attempts = count
        return copy
    }

    public var description: String {
        let name: String
        switch forge {
        case .github: name = "GitHub"
        case .gitea: name = "Gitea"
        case .gitlab: name = "GitLab"
        }
        let what = status.map { "\(name) answered \($0)" } ?? "\(name) could not be reached"
        let tries = attempts.map { " (gave up after \($0) attempts)" } ?? ""
        return message.isEmpty ? what + tries : "\(what): \(message)\(tries)"
    }

    /// The longest message kept from an answer.
    static let messageLimit = 300

    /// GitHub `{message, errors: [{message|field, code}]}`, Gitea `{message}`, GitLab `{message}` (a string, a
    /// list, or fields with their lists) or `{error}`; else the body's first line.
    static func message(of response: ForgeResponse) -> String {
        guard let json = response.json else {
            return bounded(String(decoding: response.body.prefix(1024), as: UTF8.self))
        }
        var parts: [String] = []
        if let error = json["error"]?.stringValue { parts.append(error) }
        if let message = json["message"] { parts.append(flatten(message)) }
        for error in json["errors"]?.arrayValue ?? [] {
            if let text = error["message"]?.stringValue {
                parts.append(text)
            } else if let field = error["field"]?.stringValue {
                parts.append("\(field): \(error["code"]?.stringValue ?? "invalid")")
            } else if let text = error.stringValue {
                parts.append(text)
            }
        }
        return bounded(parts.filter { !$0.isEmpty }.joined(separator: "; "))
    }

    private static func flatten(_ value: ForgeJSON) -> String {
        switch value {
        case .string(let text): return text
        case .array(let items): return items.map(flatten).joined(separator: ", ")
        case .object(let members): return members.map { "\($0.0) \(flatten($0.1))" }.joined(separator: "; ")
        case .integer(let number): return String(number)
        default: return ""
        }
    }

    static func bounded(_ text: String) -> String {
        ForgeTextCut.cut(DisplayEscaping.escaped(ForgeTextCut.oneLine(text)), toScalars: messageLimit)
    }
}

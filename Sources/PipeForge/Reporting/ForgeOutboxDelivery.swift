import Foundation
import PipeCore

/// Sends one outbox update to its forge: the stored request with the forge's credential added, through
/// `transport` (libcurl in the controller), and the answer read into what the sender does next.
public struct ForgeOutboxDelivery: Sendable {
    /// Sends `request` under the forge's API base URL: the answer, or why none came (connection refused, timeout).
    public typealias Transport =
        @Sendable (_ request: ForgeRequest, _ apiBase: URL) -> Result<ForgeResponse, ForgeTransportFailure>

    private let forges: ForgesConfig
    private let credential: @Sendable (ForgeConfig) throws -> ForgeCredential
    private let transport: Transport
    private let clock: @Sendable () -> Date
    private let random: @Sendable () -> Double

    public init(
        forges: ForgesConfig, clock: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        credential: @escaping @Sendable (ForgeConfig) throws -> ForgeCredential, transport: @escaping Transport
    ) {
        self.forges = forges
        self.credential = credential
        self.transport = transport
        self.clock = clock
        self.random = random
    }

    public func deliver(_ update: ForgeUpdate) -> ForgeOutboxSender.Outcome {
        guard let forge = forges.forge(named: update.draft.forge) else {
            return .failed("forge \(update.draft.forge) is no longer in forges.yml")
        }
        guard update.draft.kind == ForgeStatusOutbox.kind, let request = StoredForgeRequest.decode(update.draft.payload)
        else {
            return .failed("an outbox entry of kind \(update.draft.kind) this Pipe cannot send")
        }
        let authorized: ForgeRequest
        do {
            authorized = request.authorized(by: try credential(forge))
        } catch {
            // The token is missing or unreadable: a person must fix the setup, and the update waits for them.
            return .retry(seconds: 300, error: "no token for \(forge.name): \(error)", forgeWaits: true)
        }
        let reader = ForgeAnswerReader(forge: forge.kind)
        let attempt = update.attempts + 1
        let verdict: ForgeAnswerReader.Verdict
        var rateLimited = false
        switch transport(authorized, forge.apiURL) {
        case .success(let response):
            let now = clock()
            rateLimited =
                ForgeRateLimit.retryAfter(response, now: now) != nil
                || ForgeRateLimit.exhaustedUntil(response, now: now) != nil
            verdict = reader.read(response, attempt: attempt, now: now, random: random())
        case .failure(let failure):
            verdict = reader.readTransportFailure(failure.message, attempt: attempt, random: random())
        }
        switch verdict {
        case .done: return .sent
        case .retry(let seconds, let reason): return .retry(seconds: seconds, error: reason, forgeWaits: rateLimited)
        case .giveUp(let failure): return .failed(failure.description)
        }
    }
}

/// No answer from a forge: libcurl's words, without the request's credential.
public struct ForgeTransportFailure: Error, Sendable, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}

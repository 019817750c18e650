import Foundation
import PipeCore

/// Sends one outbox update to its forge: the stored request with the forge's credential added, through
/// `transport` (libcurl in the controller), and the answer read into what the sender does next.
public struct ForgeOutboxDelivery: Sendable {
    /// Sends `request` under the forge's API base URL: the answer, or why none came (connection refused, timeout).
    public typealias Transport =
        @Sendable (_ request: ForgeRequest, _ apiBase: URL) -> Result<ForgeResponse, ForgeTransportFailure>

    private let forges: ForgesConfig
    /// Where the ids of comments Pipe made are kept, so the next run edits the same one.
    private let objects: (ForgeStore & Sendable)?
    private let identities = ForgeIdentities()
    private let credential: @Sendable (ForgeConfig) throws -> ForgeCredential
    /// The app's own credential (its JWT) for a forge that reports as a GitHub App.
    private let appCredential: @Sendable (ForgeConfig) throws -> ForgeCredential?
    /// The check run an outbox entry shows, built from the run store when it is sent.
    private let checkRun: @Sendable (ForgeCheckRunOutbox.Payload, ForgeConfig) throws -> GitHubCheckRun?
    private let transport: Transport
    private let clock: @Sendable () -> Date
    private let random: @Sendable () -> Double

    public init(
        forges: ForgesConfig, objects: (ForgeStore & Sendable)? = nil,
        clock: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        credential: @escaping @Sendable (ForgeConfig) throws -> ForgeCredential,
        appCredential: @escaping @Sendable (ForgeConfig) throws -> ForgeCredential? = { _ in nil },
        checkRun: @escaping @Sendable (ForgeCheckRunOutbox.Payload, ForgeConfig) throws -> GitHubCheckRun? = { _, _ in
            nil
        },
        transport: @escaping Transport
    ) {
        self.appCredential = appCredential
        self.checkRun = checkRun
        self.forges = forges
        self.objects = objects
        self.credential = credential
        self.transport = transport
        self.clock = clock
        self.random = random
    }

    public func deliver(_ update: ForgeUpdate) -> ForgeOutboxSender.Outcome {
        guard let forge = forges.forge(named: update.draft.forge) else {
            return .failed("forge \(update.draft.forge) is no longer in forges.yml")
        }
        let token: ForgeCredential
        do {
            token = try credential(forge)
        } catch {
            // The token is missing or unreadable: a person must fix the setup, and the update waits for them.
            return .retry(seconds: 300, error: "no token for \(forge.name): \(error)", forgeWaits: true)
        }
        switch update.draft.kind {
        case ForgeStatusOutbox.kind:
            guard let request = StoredForgeRequest.decode(update.draft.payload) else { break }
            switch send(request, forge: forge, token: token, attempt: update.attempts + 1) {
            case .answered: return .sent
            case .stop(let outcome): return outcome
            }
        case ForgeCommentOutbox.kind:
            guard let payload = ForgeCommentOutbox.payload(of: update) else { break }
            return deliverComment(payload, forge: forge, token: token, attempt: update.attempts + 1)
        case ForgeCheckRunOutbox.kind:
            guard let payload = ForgeCheckRunOutbox.payload(of: update), let app = forge.app else { break }
            return deliverCheckRun(payload, appID: app.appID, forge: forge, token: token, attempt: update.attempts + 1)
        default:
            break
        }
        return .failed("an outbox entry of kind \(update.draft.kind) this Pipe cannot read")
    }

    /// Edits the comment the store knows, or Pipe's own found by marker and author, or makes it; keeps its id.
    private func deliverComment(
        _ payload: ForgeCommentOutbox.Payload, forge: ForgeConfig, token: ForgeCredential, attempt: Int
    ) -> ForgeOutboxSender.Outcome {
        let key = ForgeCommentOutbox.objectKey(
            repository: forge.repository, pullRequest: payload.pullRequest, pipeline: payload.pipeline)
        do {
            guard let author = try identity(of: forge, token: token, attempt: attempt) else {
                return .retry(seconds: 60, error: "the forge did not say who Pipe posts as", forgeWaits: false)
            }
            let update = PullRequestCommentUpdate(
                api: ForgeAPI(repository: try forge.apiRepository), pullRequest: payload.pullRequest,
                pipeline: payload.pipeline, body: payload.body, author: author)
            func flow(_ step: PullRequestCommentUpdate.Step) -> FlowStep {
                switch step {
                case .send(let request, let purpose):
                    return .send(request) { try flow(update.next(after: purpose, response: $0)) }
                case .done(let id):
                    return .done {
                        try objects?.recordForgeObjectID(forge: forge.name, key: key, id: String(id), at: clock())
                        return .sent
                    }
                case .failed(let failure):
                    return .failed(failure.description)
                }
            }
            let stored = try objects?.forgeObjectID(forge: forge.name, key: key).flatMap(Int.init)
            return try follow(
                flow(try update.first(storedCommentID: stored)), forge: forge, token: token, attempt: attempt,
                what: "the comment")
        } catch {
            return .failed("\(error)")
        }
    }

    /// Updates the gate's check run the store knows, or the app's own found by `external_id`, or makes it; then
    /// sends the annotations that did not fit, and keeps the check run's id.
    private func deliverCheckRun(
        _ payload: ForgeCheckRunOutbox.Payload, appID: Int, forge: ForgeConfig, token: ForgeCredential, attempt: Int
    ) -> ForgeOutboxSender.Outcome {
        do {
            guard let checkRun = try checkRun(payload, forge) else {
                return .failed("run \(payload.runID) is no longer in the run store")
            }
            let key = ForgeCheckRunOutbox.objectKey(repository: forge.repository, externalID: checkRun.externalID)
            // How many annotations the check run holds, kept beside its id: a retry or a later report (a
            // sign-off reports every gate again) sends only those it lacks.
            let heldKey = key + " annotations"
            let held = try objects?.forgeObjectID(forge: forge.name, key: heldKey).flatMap(Int.init) ?? 0
            let update = GitHubCheckRunUpdate(checkRun: checkRun, appID: appID, now: clock(), annotationsSent: held)
            func flow(_ step: GitHubCheckRunUpdate.Step) -> FlowStep {
                switch step {
                case .send(let request, let purpose):
                    return .send(request) { try flow(update.next(after: purpose, response: $0)) }
                case .done(let id, let batches, let alreadyHeld):
                    return .done {
                        try objects?.recordForgeObjectID(forge: forge.name, key: key, id: String(id), at: clock())
                        var holding = alreadyHeld
                        func record() throws {
                            try objects?.recordForgeObjectID(
                                forge: forge.name, key: heldKey, id: String(holding), at: clock())
                        }
                        try record()
                        for batch in batches {
                            if case .stop(let outcome) = send(batch, forge: forge, token: token, attempt: attempt) {
                                return outcome
                            }
                            holding += batch.body?["output"]?["annotations"]?.arrayValue?.count ?? 0
                            try record()
                        }
                        return .sent
                    }
                case .failed(let failure):
                    return .failed(failure.description)
                }
            }
            let stored = try objects?.forgeObjectID(forge: forge.name, key: key).flatMap(Int.init)
            return try follow(
                flow(try update.first(storedCheckRunID: stored)), forge: forge, token: token, attempt: attempt,
                what: "the check run")
        } catch {
            return .failed("\(error)")
        }
    }

    /// One step of a find-or-make flow (a comment, a check run): a request whose answer gives the next step.
    private enum FlowStep {
        case send(ForgeRequest, next: (ForgeResponse) throws -> FlowStep)
        case done(() throws -> ForgeOutboxSender.Outcome)
        case failed(String)
    }

    /// Sends a flow's requests until it is done; bounded, since a search reads pages of the forge's lists.
    private func follow(
        _ first: FlowStep, forge: ForgeConfig, token: ForgeCredential, attempt: Int, what: String
    ) throws -> ForgeOutboxSender.Outcome {
        var step = first
        for _ in 0..<50 {
            switch step {
            case .send(let request, let next):
                switch send(request, forge: forge, token: token, attempt: attempt, acceptingGone: true) {
                case .answered(let response): step = try next(response)
                case .stop(let outcome): return outcome
                }
            case .done(let finish):
                return try finish()
            case .failed(let message):
                return .failed(message)
            }
        }
        return .failed("\(what) was not found within 50 pages of the forge's lists")
    }

    /// Who the token posts as, asked once per forge: `GET /user`, or for a GitHub App `GET /app` (its bot user).
    private func identity(of forge: ForgeConfig, token: ForgeCredential, attempt: Int) throws -> ForgeAuthor? {
        if let known = identities.author(of: forge.name) { return known }
        if forge.app != nil, let jwt = try appCredential(forge) {
            let request = ForgeRequest(
                method: .get, path: "/app", headers: ForgeAPI.headers(forge.kind, hasBody: false))
            guard case .answered(let response) = send(request, forge: forge, token: jwt, attempt: attempt),
                let slug = response.json?["slug"]?.stringValue, !slug.isEmpty
            else { return nil }
            let author = ForgeAuthor(id: nil, login: slug + "[bot]")
            identities.remember(author, of: forge.name)
            return author
        }
        let request = ForgeRequest(method: .get, path: "/user", headers: ForgeAPI.headers(forge.kind, hasBody: false))
        guard case .answered(let response) = send(request, forge: forge, token: token, attempt: attempt),
            let user = response.json
        else { return nil }
        let login = user["login"]?.stringValue ?? user["username"]?.stringValue ?? ""
        guard !login.isEmpty else { return nil }
        let author = ForgeAuthor(id: user["id"]?.intValue, login: login)
        identities.remember(author, of: forge.name)
        return author
    }

    private enum Sent {
        /// A 2xx, or (with `acceptingGone`) a 403 or 404 the step after it handles.
        case answered(ForgeResponse)
        case stop(ForgeOutboxSender.Outcome)
    }

    private func send(
        _ request: ForgeRequest, forge: ForgeConfig, token: ForgeCredential, attempt: Int, acceptingGone: Bool = false
    ) -> Sent {
        let reader = ForgeAnswerReader(forge: forge.kind)
        let verdict: ForgeAnswerReader.Verdict
        var rateLimited = false
        switch transport(request.authorized(by: token), forge.apiURL) {
        case .success(let response):
            let now = clock()
            rateLimited =
                ForgeRateLimit.retryAfter(response, now: now) != nil
                || ForgeRateLimit.exhaustedUntil(response, now: now) != nil
            if acceptingGone, !rateLimited, [403, 404].contains(response.status) { return .answered(response) }
            verdict = reader.read(response, attempt: attempt, now: now, random: random())
        case .failure(let failure):
            verdict = reader.readTransportFailure(failure.message, attempt: attempt, random: random())
        }
        switch verdict {
        case .done(let response): return .answered(response)
        case .retry(let seconds, let reason):
            return .stop(.retry(seconds: seconds, error: reason, forgeWaits: rateLimited))
        case .giveUp(let failure): return .stop(.failed(failure.description))
        }
    }
}

/// Who each forge's token posts as, learnt once.
final class ForgeIdentities: @unchecked Sendable {
    private let lock = NSLock()
    private var authors: [String: ForgeAuthor] = [:]

    func author(of forge: String) -> ForgeAuthor? { lock.withLock { authors[forge] } }
    func remember(_ author: ForgeAuthor, of forge: String) { lock.withLock { authors[forge] = author } }
}

/// No answer from a forge: libcurl's words, without the request's credential.
public struct ForgeTransportFailure: Error, Sendable, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}

import Foundation

/// The steps that bring a gate's check run to its state once: update the check run whose id the store kept, else
/// find it by `external_id` among the app's check runs of the commit, else create it. Annotations go only with the
/// final state (the create's first 50, then the rest in `done`'s batches): GitHub appends them on each update, so
/// each batch is its own update, and the annotations a check run already holds are never sent to it again.
public struct GitHubCheckRunUpdate: Sendable {
    public var checkRun: GitHubCheckRun
    public var appID: Int
    public var now: Date
    /// How many of `checkRun`'s annotations the stored check run already holds (sent by an earlier delivery).
    public var annotationsSent: Int

    public init(checkRun: GitHubCheckRun, appID: Int, now: Date, annotationsSent: Int = 0) {
        self.checkRun = checkRun
        self.appID = appID
        self.now = now
        self.annotationsSent = annotationsSent
    }

    public enum Step: Sendable, Equatable {
        case send(ForgeRequest, Purpose)
        /// The check run holds the state and its first `annotationsHeld` annotations; `annotationBatches` are the
        /// rest, to send each once.
        case done(checkRunID: Int, annotationBatches: [ForgeRequest], annotationsHeld: Int)
        case failed(ForgeFailure)
    }

    public enum Purpose: Sendable, Equatable {
        case update(checkRunID: Int, stored: Bool)
        case find(page: Int)
        case create
    }

    /// Whether the state is the last one this run's check run will get (annotations are sent with it).
    public var isFinal: Bool {
        switch checkRun.report.state {
        case .queued, .running, .awaitingSignoff: return false
        case .passed, .appFailed, .couldNotJudge, .cancelled, .superseded: return true
        }
    }

    public func first(storedCheckRunID: Int?) throws -> Step {
        if let id = storedCheckRunID { return try update(id, stored: true) }
        return .send(try checkRun.list(appID: appID), .find(page: 1))
    }

    public func next(after purpose: Purpose, response: ForgeResponse) throws -> Step {
        let ok = (200..<300).contains(response.status)
        switch purpose {
        case .update(let id, let stored):
            if ok { return try done(id, holding: annotationsSent) }
            if stored && response.status == 404 { return .send(try checkRun.list(appID: appID), .find(page: 1)) }
            return .failed(ForgeFailure(forge: .github, response: response))
        case .find(let page):
            guard ok else { return .failed(ForgeFailure(forge: .github, response: response)) }
            if let id = checkRun.find(in: response, appID: appID) { return try update(id, stored: false) }
            let listed = response.json?["check_runs"]?.arrayValue ?? []
            if let nextPage = ForgeAnswers.nextPage(response), nextPage > page, !listed.isEmpty {
                return .send(try checkRun.list(appID: appID, page: nextPage), .find(page: nextPage))
            }
            return .send(try checkRun.create(at: now, withAnnotations: isFinal), .create)
        case .create:
            guard ok, let id = ForgeAnswers.createdID(response) else {
                return .failed(ForgeFailure(forge: .github, response: response))
            }
            return try done(id, holding: isFinal ? min(ForgeLimits.CheckRun.annotationsPerRequest, total) : 0)
        }
    }

    private func update(_ id: Int, stored: Bool) throws -> Step {
        .send(try checkRun.update(checkRunID: id, at: now), .update(checkRunID: id, stored: stored))
    }

    private var total: Int { checkRun.annotations.count }

    private func done(_ id: Int, holding: Int) throws -> Step {
        let held = min(holding, total)
        return .done(
            checkRunID: id,
            annotationBatches: isFinal ? try checkRun.annotationBatches(checkRunID: id, skippingFirst: held) : [],
            annotationsHeld: held)
    }
}

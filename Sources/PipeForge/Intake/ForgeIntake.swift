import Foundation
import PipeBasics
import PipeCore

/// Turns a verified delivery of one forge into runs: a push or a pull request queues the pipelines `forges.yml`
/// names, at the event's exact head; an earlier run of the same pipeline, commit and parameters is reused; a newer
/// head supersedes older runs of the same pull request or branch; forks follow the configured policy; a re-run
/// asked for on the forge queues again, linked to the run it repeats.
///
/// A replayed body (or delivery id) is answered and not acted on again, across every controller of the store.
public final class ForgeIntake {
    public typealias Store = RunQueue & RunStore & ForgeStore

    private let config: ForgeConfig
    private let store: Store
    private let clock: () -> Date
    private let currentHead: (ForgeTrigger) -> String?
    private let rerequestLimit: (count: Int, seconds: Double)

    /// - Parameters:
    ///   - currentHead: the pull request's (or branch's) head as the forge reports it now, `nil` when it cannot be
    ///     asked: an event whose head is no longer the current one supersedes nothing and runs nothing.
    ///   - rerequestLimit: re-runs asked for one check run within `seconds`; more are answered and not queued.
    public init(
        config: ForgeConfig, store: Store, clock: @escaping () -> Date = Date.init,
        rerequestLimit: (count: Int, seconds: Double) = (5, 600), currentHead: @escaping (ForgeTrigger) -> String?
    ) {
        self.config = config
        self.store = store
        self.clock = clock
        self.currentHead = currentHead
        self.rerequestLimit = rerequestLimit
    }

    public func accept(_ delivery: WebhookDelivery) throws -> ForgeIntakeResult {
        let now = clock()
        var rateKey: String?
        if case .checkRerequested(let rerequest) = delivery.event {
            rateKey = "rerequest:\(config.name):\(Self.scopeKey(rerequest.scope))"
        }
        let recorded = try store.recordDelivery(
            ForgeDelivery(
                forge: config.name, deliveryID: delivery.deliveryID, bodyDigest: delivery.bodyDigest,
                event: delivery.eventName, rateKey: rateKey, receivedAt: now))
        if case .seenBefore(let firstAt, let firstID) = recorded {
            return ForgeIntakeResult(
                summary: "replay: this delivery was received at \(UTCTimestamp.iso8601(firstAt))"
                    + (firstID.map { " as \($0)" } ?? "") + "; not acted on again")
        }
        switch delivery.event {
        case .ping:
            return ForgeIntakeResult(summary: "pong: \(config.name) reaches Pipe")
        case .ignored(let reason):
            return ForgeIntakeResult(summary: "ignored: \(reason)")
        case .push(let push):
            return try accept(push, delivery: delivery)
        case .pullRequest(let pullRequest):
            return try accept(pullRequest, delivery: delivery)
        case .checkRerequested(let rerequest):
            return try accept(rerequest, delivery: delivery, rateKey: rateKey ?? "")
        }
    }

    // MARK: - Pushes

    private func accept(_ push: PushEvent, delivery: WebhookDelivery) throws -> ForgeIntakeResult {
        guard sameRepository(push.repository) else { return otherRepository(push.repository) }
        guard let head = push.after else {
            return ForgeIntakeResult(summary: "ignored: \(push.ref) was deleted")
        }
        let pipelines = config.pipelines(forPushTo: push.ref)
        guard !pipelines.isEmpty else {
            return ForgeIntakeResult(summary: "ignored: forges.yml runs nothing for pushes to \(push.ref)")
        }
        let trigger = ForgeTrigger(
            forge: config.name, repository: config.repository, event: .push, number: nil, headSHA: head,
            headBranch: push.name, fetchRef: push.ref, deliveryID: delivery.deliveryID, previousSHA: push.before)
        return try queue(
            pipelines, trigger: trigger, requestedBy: requester(push.sender),
            reason: "push of \(Self.short(head)) to \(push.ref)")
    }

    // MARK: - Pull requests

    private func accept(_ pullRequest: PullRequestEvent, delivery: WebhookDelivery) throws -> ForgeIntakeResult {
        guard sameRepository(pullRequest.baseRepository) else { return otherRepository(pullRequest.baseRepository) }
        var trigger = ForgeTrigger(
            forge: config.name, repository: config.repository, event: .pullRequest, number: pullRequest.number,
            headSHA: pullRequest.headSHA, headBranch: pullRequest.headRef,
            fetchRef: pullRequest.headFetchRef(config.kind), baseBranch: pullRequest.baseRef,
            fork: pullRequest.isFromFork ? pullRequest.headRepository : nil, deliveryID: delivery.deliveryID)
        let what = "pull request #\(pullRequest.number)"
        if pullRequest.action == .closed {
            let dropped = try supersede(trigger, pipelines: nil, reason: "\(what) was closed", closing: true)
            return ForgeIntakeResult(
                summary: "\(what) closed: \(dropped.count) waiting or running run(s) stopped", actions: dropped)
        }
        if pullRequest.action == .labeled {
            return try acceptLabel(pullRequest, trigger: &trigger)
        }
        let pipelines = config.pipelines(forPullRequest: pullRequest.action, targeting: pullRequest.baseRef)
        guard !pipelines.isEmpty else {
            return ForgeIntakeResult(
                summary: "ignored: forges.yml runs nothing for \(what) (\(Self.name(of: pullRequest.action))) "
                    + "into \(pullRequest.baseRef)")
        }
        if pullRequest.isFromFork {
            switch config.forks {
            case .never:
                return ForgeIntakeResult(
                    summary: "\(what) comes from the fork \(pullRequest.headRepository): forks.policy is never, "
                        + "so it runs nothing",
                    actions: pipelines.map { .skipped(pipeline: $0, reason: "pull requests from forks do not run") })
            case .withoutSecrets:
                trigger.secretsWithheld = true
            case .approved:
                let approval = try store.forgeApproval(
                    forge: config.name, repository: config.repository, number: pullRequest.number,
                    headSHA: pullRequest.headSHA)
                guard approval != nil else {
                    let reason = "waiting for a maintainer to approve \(Self.short(pullRequest.headSHA))"
                    return ForgeIntakeResult(
                        summary: "\(what) comes from the fork \(pullRequest.headRepository): \(reason)",
                        actions: pipelines.map { .skipped(pipeline: $0, reason: reason) })
                }
                trigger.event = .approval
            }
        }
        return try queue(
            pipelines, trigger: trigger, requestedBy: requester(pullRequest.sender),
            reason:
                "\(what) \"\(ForgeTextCut.cut(pullRequest.title, toScalars: 80))\" at \(Self.short(pullRequest.headSHA))"
        )
    }

    /// A label that approves a fork's head, added by someone the config names, records the approval and runs it.
    private func acceptLabel(_ pullRequest: PullRequestEvent, trigger: inout ForgeTrigger) throws
        -> ForgeIntakeResult
    {
        let what = "pull request #\(pullRequest.number)"
        guard pullRequest.isFromFork, case .approved(let rules) = config.forks,
            let sender = pullRequest.sender,
            let label = pullRequest.addedLabels.first(where: { rules.labelApproves($0, addedBy: sender) })
        else {
            return ForgeIntakeResult(summary: "ignored: a label on \(what) that approves nothing")
        }
        return try approve(
            pullRequest, trigger: &trigger, by: "\(config.kind.rawValue):\(sender)", via: "label \(label)")
    }

    /// A maintainer's approval, given on the coordinator (`pipe forge approve`) or in the chat, of a fork's pull
    /// request at `headSHA`: recorded, and its pipelines queued there as a label's approval does. Refused unless
    /// the fork policy takes approvals from `source`.
    public func approve(
        number: Int, headSHA: String, headRef: String, baseBranch: String, headRepository: String,
        from source: ForkApprovalSource, by approver: String, via: String
    ) throws -> ForgeIntakeResult {
        if let refusal = config.forks.refusal(of: source, forge: config.name) {
            throw ForgeApprovalRefused(refusal)
        }
        let fromFork = headRepository.lowercased() != config.repository.lowercased()
        let pullRequest = PullRequestEvent(
            action: .labeled, number: number, headSHA: headSHA, headRef: headRef, headRepository: headRepository,
            baseRef: baseBranch, baseRepository: config.repository, isFromFork: fromFork, title: "", author: nil,
            sender: nil)
        var trigger = ForgeTrigger(
            forge: config.name, repository: config.repository, event: .approval, number: number, headSHA: headSHA,
            headBranch: headRef, fetchRef: pullRequest.headFetchRef(config.kind), baseBranch: baseBranch,
            fork: fromFork ? headRepository : nil, deliveryID: nil)
        return try approve(pullRequest, trigger: &trigger, by: approver, via: via)
    }

    /// Records a maintainer's approval of the pull request's current head and queues its pipelines there.
    private func approve(
        _ pullRequest: PullRequestEvent, trigger: inout ForgeTrigger, by approver: String, via: String
    ) throws -> ForgeIntakeResult {
        try store.recordForgeApproval(
            ForgeApproval(
                forge: config.name, repository: config.repository, number: pullRequest.number,
                headSHA: pullRequest.headSHA, approvedBy: approver, via: via, approvedAt: clock()))
        trigger.event = .approval
        let pipelines = config.pipelines(forPullRequest: .opened, targeting: pullRequest.baseRef)
        return try queue(
            pipelines, trigger: trigger, requestedBy: approver,
            reason: "pull request #\(pullRequest.number) at \(Self.short(pullRequest.headSHA)), approved by "
                + "\(approver) (\(via))")
    }

    // MARK: - Re-runs asked for on the forge

    private func accept(_ rerequest: CheckRerequest, delivery: WebhookDelivery, rateKey: String) throws
        -> ForgeIntakeResult
    {
        guard sameRepository(rerequest.repository) else { return otherRepository(rerequest.repository) }
        guard let app = config.app, rerequest.appID == Int64(app.appID) else {
            return ForgeIntakeResult(summary: "ignored: the re-run is for another app's checks")
        }
        let since = clock().addingTimeInterval(-rerequestLimit.seconds)
        let asked = try store.deliveryCount(rateKey: rateKey, since: since)
        guard asked <= rerequestLimit.count else {
            return ForgeIntakeResult(
                summary: "refused: \(asked) re-runs of this check were asked within "
                    + "\(Int(rerequestLimit.seconds)) s; at most \(rerequestLimit.count) are queued")
        }
        let earlier = try earlierRuns(at: rerequest.headSHA, scope: rerequest.scope)
        guard !earlier.isEmpty else {
            return ForgeIntakeResult(
                summary: "ignored: no run of Pipe's at \(Self.short(rerequest.headSHA)) to run again")
        }
        var actions: [ForgeIntakeResult.Action] = []
        for item in earlier {
            guard var trigger = item.request.forge else { continue }
            trigger.event = .rerequest
            trigger.deliveryID = delivery.deliveryID
            let request = QueueRequest(
                pipeline: item.request.pipeline, ref: trigger.headSHA, parameters: item.request.parameters,
                source: .forge, requestedBy: requester(rerequest.sender),
                reason: "re-run of run \(item.runID) asked for on \(config.name)", triggerKey: nil, forge: trigger,
                rerunOf: item.runID)
            if case .queued(let queued) = try store.enqueue(request, at: clock()) {
                actions.append(.queued(pipeline: request.pipeline, runID: queued.runID))
            }
        }
        return ForgeIntakeResult(summary: Self.summary(of: actions), actions: actions)
    }

    /// The run one check run names (its `external_id`), or the latest run of each pipeline this forge queued at
    /// `sha` (a whole suite).
    private func earlierRuns(at sha: String, scope: CheckRerequest.Scope) throws -> [QueuedRun] {
        if case .checkRun(_, let externalID?) = scope {
            guard let runID = Self.runID(ofExternalID: externalID), let item = try store.queuedRun(runID),
                item.request.forge?.forge == config.name, item.request.forge?.headSHA == sha
            else { return [] }
            return [item]
        }
        var latest: [String: QueuedRun] = [:]
        for item in try store.forgeQueueItems(forge: config.name, headSHA: sha) {
            guard let trigger = item.request.forge, trigger.forge == config.name, trigger.headSHA == sha,
                latest[item.request.pipeline] == nil
            else { continue }
            latest[item.request.pipeline] = item
        }
        return latest.values.sorted { $0.enqueuedAt < $1.enqueuedAt }
    }

    // MARK: - Queueing and superseding

    private func queue(_ pipelines: [String], trigger: ForgeTrigger, requestedBy: String, reason: String) throws
        -> ForgeIntakeResult
    {
        if let stale = try staleness(of: trigger) {
            return ForgeIntakeResult(
                summary: "stale: \(stale); nothing superseded or run",
                actions: pipelines.map { .skipped(pipeline: $0, reason: stale) })
        }
        var actions: [ForgeIntakeResult.Action] = []
        if config.supersede {
            actions += try supersede(
                trigger, pipelines: Set(pipelines), reason: "superseded by \(Self.short(trigger.headSHA))")
        }
        for pipeline in pipelines {
            actions.append(try queue(pipeline, trigger: trigger, requestedBy: requestedBy, reason: reason))
        }
        return ForgeIntakeResult(summary: Self.summary(of: actions), actions: actions)
    }

    private func queue(_ pipeline: String, trigger: ForgeTrigger, requestedBy: String, reason: String) throws
        -> ForgeIntakeResult.Action
    {
        // A fork's run has no secrets and untrusted hosts: a trusted trigger at the same commit does not reuse it.
        var key = QueueRequest.commitKey(pipeline: pipeline, sha: trigger.headSHA, parameters: [:])
        if trigger.fork != nil { key += ":untrusted" }
        var request = QueueRequest(
            pipeline: pipeline, ref: trigger.headSHA, source: .forge, requestedBy: requestedBy, reason: reason,
            triggerKey: key, forge: trigger)
        switch try store.enqueue(request, at: clock()) {
        case .queued(let queued):
            return .queued(pipeline: pipeline, runID: queued.runID)
        case .alreadyTriggered(_, let runID):
            if try !wasStopped(runID) { return .reused(pipeline: pipeline, runID: runID) }
            // The earlier run was cancelled or superseded: this event runs it again under a key of its own.
            request.triggerKey = key + ":after:" + runID
            request.rerunOf = runID
            switch try store.enqueue(request, at: clock()) {
            case .queued(let queued): return .queued(pipeline: pipeline, runID: queued.runID)
            case .alreadyTriggered(_, let again): return .reused(pipeline: pipeline, runID: again)
            }
        }
    }

    /// Why the event's head is no longer the newest, if it is not: a later push was received, or the forge reports
    /// the pull request elsewhere now.
    private func staleness(of trigger: ForgeTrigger) throws -> String? {
        if let later = try laterPush(than: trigger) {
            return "the push of \(Self.short(trigger.headSHA)) to \(trigger.fetchRef) arrived after the push that "
                + "replaced it with \(Self.short(later))"
        }
        if let current = currentHead(trigger), current.lowercased() != trigger.headSHA.lowercased() {
            return "the event is for \(Self.short(trigger.headSHA)), but \(Self.place(of: trigger)) is now at "
                + "\(Self.short(current))"
        }
        return nil
    }

    /// For a push, the commit of a push to the same branch, already received, that replaced this push's commit (its
    /// `before` is this head): the forge delivered the older push late. A force-push back to an older commit
    /// replaces the newer one itself (its `before` is that commit), so it is not late.
    private func laterPush(than trigger: ForgeTrigger) throws -> String? {
        guard trigger.event == .push else { return nil }
        guard let place = trigger.place else { return nil }
        let head = trigger.headSHA.lowercased()
        let previous = trigger.previousSHA?.lowercased()
        let branchPushes = try store.forgeQueueItems(
            forge: trigger.forge, repository: trigger.repository, place: place, states: nil)
        for item in branchPushes {
            guard let other = item.request.forge, other.event == .push, other.forge == trigger.forge,
                other.repository == trigger.repository, other.fetchRef == trigger.fetchRef,
                other.previousSHA?.lowercased() == head, other.headSHA.lowercased() != previous
            else { continue }
            return other.headSHA
        }
        return nil
    }

    /// Whether a run was stopped before it could judge: cancelled (by a person or a newer head) or never started.
    private func wasStopped(_ runID: String) throws -> Bool {
        if let item = try store.queuedRun(runID), [.cancelled, .failed, .interrupted].contains(item.state) {
            return true
        }
        return try store.run(runID)?.record.status == .cancelled
    }

    /// Drops the queued runs and cancels the running ones of the same pull request (or branch) and pipelines at
    /// another commit; when `closing`, at every commit.
    private func supersede(
        _ trigger: ForgeTrigger, pipelines: Set<String>?, reason: String, closing: Bool = false
    ) throws -> [ForgeIntakeResult.Action] {
        var actions: [ForgeIntakeResult.Action] = []
        guard let place = trigger.place else { return actions }
        let now = clock()
        let samePlace = try store.forgeQueueItems(
            forge: trigger.forge, repository: trigger.repository, place: place, states: [.queued, .claimed])
        // Oldest first, as they were queued: the actions read in the order the runs were asked for.
        for item in samePlace.reversed() {
            guard let other = item.request.forge, other.forge == trigger.forge,
                other.repository == trigger.repository, Self.samePlace(other, trigger),
                closing || other.headSHA.lowercased() != trigger.headSHA.lowercased(),
                pipelines?.contains(item.request.pipeline) ?? true
            else { continue }
            let action: ForgeIntakeResult.Action =
                closing
                ? .stopped(runID: item.runID, reason: reason) : .superseded(runID: item.runID, bySHA: trigger.headSHA)
            switch item.state {
            case .queued:
                if try store.cancelQueued(runID: item.runID, reason: reason, at: now) { actions.append(action) }
            default:
                // A run whose record is not written yet is starting; it is left to finish on its own commit.
                guard try store.run(item.runID) != nil else { continue }
                if case .requested = try store.requestCancellation(
                    runID: item.runID, reason: reason, requestedBy: "forge \(config.name)", at: now)
                {
                    actions.append(action)
                }
            }
        }
        return actions
    }

    /// Runs of one pull request, or pushes to one branch.
    private static func samePlace(_ one: ForgeTrigger, _ other: ForgeTrigger) -> Bool {
        switch (one.number, other.number) {
        case (let first?, let second?): first == second
        case (nil, nil): one.event == .push && other.event == .push && one.fetchRef == other.fetchRef
        default: false
        }
    }

    // MARK: - Words

    private func sameRepository(_ repository: String) -> Bool {
        repository.lowercased() == config.repository.lowercased()
    }

    private func otherRepository(_ repository: String) -> ForgeIntakeResult {
        ForgeIntakeResult(
            summary: "ignored: the delivery is for \(repository), but forge \(config.name) is \(config.repository)")
    }

    private func requester(_ login: String?) -> String {
        "\(config.kind.rawValue):\(login ?? "unknown")"
    }

    private static func place(of trigger: ForgeTrigger) -> String {
        trigger.number.map { "pull request #\($0)" } ?? trigger.fetchRef
    }

    /// The run a check run's `external_id` (`pipe:<pipeline>:<gate>…:<run id>`, `GitHubCheckRun.externalID`) names;
    /// `nil` when it is not Pipe's.
    static func runID(ofExternalID externalID: String) -> String? {
        let parts = externalID.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "pipe", let last = parts.last, RunID(String(last)) != nil else {
            return nil
        }
        return String(last)
    }

    private static func scopeKey(_ scope: CheckRerequest.Scope) -> String {
        switch scope {
        case .checkRun(let id, _): "check-run:\(id)"
        case .checkSuite(let id): "check-suite:\(id)"
        }
    }

    static func name(of action: PullRequestAction) -> String {
        switch action {
        case .opened: "opened"
        case .synchronized: "synchronized"
        case .reopened: "reopened"
        case .closed: "closed"
        case .labeled: "labeled"
        case .other(let name): name
        }
    }

    static func short(_ sha: String) -> String { String(sha.prefix(12)) }

    private static func summary(of actions: [ForgeIntakeResult.Action]) -> String {
        let parts = actions.map { action -> String in
            switch action {
            case .queued(let pipeline, let runID): "queued \(pipeline) as run \(runID)"
            case .reused(let pipeline, let runID): "\(pipeline): run \(runID) already verifies this commit"
            case .superseded(let runID, let sha): "run \(runID) superseded by \(short(sha))"
            case .stopped(let runID, let reason): "run \(runID) stopped: \(reason)"
            case .skipped(let pipeline, let reason): "\(pipeline ?? "nothing") skipped: \(reason)"
            }
        }
        return parts.isEmpty ? "nothing to run" : parts.joined(separator: "; ")
    }
}

/// An approval the fork policy does not allow from where it was given.
public struct ForgeApprovalRefused: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The intake could not do what the store should have allowed.
public struct ForgeIntakeError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

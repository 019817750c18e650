import Foundation

/// What the forge loop keeps in the run store, where every controller of the store sees it: the deliveries seen
/// (a replayed body is answered and not run again, whatever id it carries), the outbox of updates for forges, the
/// ids of what Pipe made on a forge, and maintainers' approvals of pull requests from forks.
///
/// Every call is synchronous and durable when it returns, like `RunStore`'s.
public protocol ForgeStore: AnyObject {
    // MARK: Deliveries

    /// Records a verified delivery, unless its body or its delivery id was seen before: then nothing is recorded
    /// and the answer says when the first one came.
    func recordDelivery(_ delivery: ForgeDelivery) throws -> ForgeDeliveryRecording

    /// Deliveries recorded with `rateKey` since `date` (how often a check run was asked to run again).
    func deliveryCount(rateKey: String, since date: Date) throws -> Int

    // MARK: Runs a forge queued

    /// The queue items this forge queued for one repository and place, newest first, in `states` (every state when
    /// `nil`): what a new head supersedes, whatever the queue's length.
    func forgeQueueItems(
        forge: String, repository: String, place: ForgeTrigger.Place, states: Set<QueuedRun.State>?
    ) throws -> [QueuedRun]

    /// The queue items this forge queued at one commit (any case of its hex), newest first.
    func forgeQueueItems(forge: String, headSHA: String) throws -> [QueuedRun]

    // MARK: The outbox

    /// Writes an update to send. Updates of one target go out in order, and a newer one makes the older ones that
    /// are still waiting unnecessary (the newest state wins).
    func enqueueForgeUpdate(_ draft: ForgeUpdate.Draft) throws -> ForgeUpdate

    /// Takes the newest due update of the oldest target no live claim holds, for `owner`, until `date` plus
    /// `leaseSeconds`, leaving out the forges in `excludingForges` (waiting out a rate limit); the older waiting
    /// updates of that target become `superseded`. `nil` when nothing is due.
    func claimForgeUpdate(owner: String, at date: Date, leaseSeconds: Double, excludingForges: Set<String>) throws
        -> ForgeUpdate?

    /// Ends a claimed update: sent, to be tried again at a later time, or given up; and lets go of its target.
    /// `false` when `owner` no longer holds it (its claim ran out and another sender took the target).
    @discardableResult
    func finishForgeUpdate(_ sequence: Int64, owner: String, _ result: ForgeUpdateResult, at date: Date) throws -> Bool

    /// Updates in `states` (every state when `nil`), oldest first, at most `limit`.
    func forgeUpdates(states: Set<ForgeUpdate.State>?, limit: Int) throws -> [ForgeUpdate]

    // MARK: What Pipe made on a forge

    /// The forge's id of what Pipe made under `key` (a pull request's comment, a check run).
    func forgeObjectID(forge: String, key: String) throws -> String?

    /// Records the forge's id of what Pipe made under `key`, replacing an earlier one.
    func recordForgeObjectID(forge: String, key: String, id: String, at date: Date) throws

    // MARK: Approvals of fork pull requests

    /// Records a maintainer's approval of one head commit of a pull request.
    func recordForgeApproval(_ approval: ForgeApproval) throws

    /// The approval of exactly this head commit, if any: a later push needs a new one.
    func forgeApproval(forge: String, repository: String, number: Int, headSHA: String) throws -> ForgeApproval?
}

extension ForgeStore {
    /// A claim from every forge.
    public func claimForgeUpdate(owner: String, at date: Date, leaseSeconds: Double) throws -> ForgeUpdate? {
        try claimForgeUpdate(owner: owner, at: date, leaseSeconds: leaseSeconds, excludingForges: [])
    }
}

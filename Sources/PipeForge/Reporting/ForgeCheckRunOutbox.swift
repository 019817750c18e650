import Foundation
import PipeCore

/// GitHub check runs through the outbox, where a forge reports as a GitHub App with `checks: true`. The outbox
/// keeps which run and gate a check run shows; the sender builds the check run from the run store as it is when
/// it sends, so the newest state is what goes out, and finds the check run again by the id the store kept or by
/// its `external_id` among the app's.
public enum ForgeCheckRunOutbox {
    public static let kind = "check-run"

    public struct Payload: Sendable, Equatable, Codable {
        public var runID: String
        public var gate: Gate
        /// The newer head that superseded the run, which the run store does not say.
        public var supersededBy: String?
    }

    /// `check-run <forge> <repository> <sha> <context>`.
    public static func target(forge: String, repository: String, sha: CommitSHA, context: String) -> String {
        "check-run \(forge) \(repository) \(sha.value) \(context)"
    }

    /// The key of the check run's id in the store's objects of the forge.
    public static func objectKey(repository: String, externalID: String) -> String {
        "check-run \(repository) \(externalID)"
    }

    public static func draft(
        _ report: ForgeGateReport, sha: CommitSHA, forge: ForgeConfig, supersededBy: String?, at date: Date
    ) throws -> ForgeUpdate.Draft {
        let runID = report.runID?.value ?? ""
        let payload = Payload(runID: runID, gate: report.gate, supersededBy: supersededBy)
        return ForgeUpdate.Draft(
            forge: forge.name,
            target: target(forge: forge.name, repository: forge.repository, sha: sha, context: report.context),
            kind: kind, payload: String(decoding: try JSONEncoder().encode(payload), as: UTF8.self), runID: runID,
            createdAt: date)
    }

    static func payload(of update: ForgeUpdate) -> Payload? {
        try? JSONDecoder().decode(Payload.self, from: Data(update.draft.payload.utf8))
    }
}

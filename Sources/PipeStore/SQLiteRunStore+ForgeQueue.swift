import Foundation
import PipeCore

/// Runs a forge queued, found through the indexed columns schema version 8 derives from each item's forge event,
/// so superseding and re-running read only the items of one pull request, branch or commit.
extension SQLiteRunStore {
    static let forgePlaceQuery =
        "SELECT \(queueColumns) FROM run_queue WHERE forge_name = ? AND forge_repository = ? AND forge_place = ?"
    static let forgeHeadQuery =
        "SELECT \(queueColumns) FROM run_queue WHERE forge_name = ? AND forge_head = ? ORDER BY seq DESC"

    public func forgeQueueItems(
        forge: String, repository: String, place: ForgeTrigger.Place, states: Set<QueuedRun.State>?
    ) throws -> [QueuedRun] {
        var sql = Self.forgePlaceQuery
        var values: [any SQLiteBindable] = [forge, repository, Self.placeKey(place)]
        if let states {
            guard !states.isEmpty else { return [] }
            sql += " AND state IN (\(states.map { _ in "?" }.joined(separator: ", ")))"
            values += states.map(\.rawValue).sorted()
        }
        sql += " ORDER BY seq DESC"
        return try read { db in try db.query(sql, values) { try queuedRun(from: $0) } }
    }

    public func forgeQueueItems(forge: String, headSHA: String) throws -> [QueuedRun] {
        try read { db in
            try db.query(Self.forgeHeadQuery, [forge, headSHA.lowercased()]) { try queuedRun(from: $0) }
        }
    }

    /// The text schema version 8's `forge_place` column holds for a place.
    static func placeKey(_ place: ForgeTrigger.Place) -> String {
        switch place {
        case .pullRequest(let number): "pull-request:\(number)"
        case .pushes(let fetchRef): "pushes:\(fetchRef)"
        }
    }
}

import Foundation
import PipeCore

/// SQL that fills a run store's queue with many forge runs of other pull requests, in one statement: a long-lived
/// or busy coordinator's queue, made in milliseconds instead of one transaction per item.
public enum ForgeQueueFiller {
    /// `count` runs of `forge` and `repository`, spread over pull requests 1000–1499 and their heads, finished or
    /// still waiting, queued a month ago.
    public static func sql(count: Int, forge: String, repository: String, waiting: Bool = false) -> String {
        let priority = QueueSource.forge.priority
        let state = waiting ? "'queued', NULL" : "'finished', '2026-11-01T00:10:00.000Z'"
        let idLetter = waiting ? "w" : "f"
        return """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO run_queue (run_id, pipeline, source, priority, requested_by, enqueued_at, state,
                finished_at, forge)
            SELECT printf('20261101-000000-\(idLetter)%07d', i), 'app-intents', 'forge', \(priority), 'github:filler',
                '2026-11-01T00:00:00.000Z', \(state),
                json_object('forge', \(literal(forge)), 'repository', \(literal(repository)), 'event', 'pull-request',
                    'number', 1000 + i % 500, 'headSHA', printf('%040x', i), 'headBranch', 'filler',
                    'fetchRef', printf('refs/pull/%d/head', 1000 + i % 500), 'secretsWithheld', json('false'))
            FROM n
            """
    }

    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

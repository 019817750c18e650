import Foundation
import PipeCore

/// Release builds (`ReleaseBuildStore`): the whole record as JSON, with the keys it is found by in columns.
extension RelationalRunStore {
    public func saveReleaseBuild(_ build: ReleaseBuild) throws {
        let record = try StoreJSON.encode(build)
        try write { db in
            _ = try runStatus(db, build.runID)
            try db.execute(
                """
                INSERT INTO release_builds (run_id, layer, commit_sha, ipa_sha256, record, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (run_id, layer) DO UPDATE SET commit_sha = excluded.commit_sha,
                    ipa_sha256 = excluded.ipa_sha256, record = excluded.record, recorded_at = excluded.recorded_at
                """,
                [
                    build.runID, build.layer, build.commit.lowercased(), build.ipaSHA256?.lowercased(), record,
                    StoreTimestamp.format(build.recordedAt),
                ])
            try touch(db, build.runID)
        }
    }

    public func releaseBuilds(runID: String) throws -> [ReleaseBuild] {
        try releaseBuilds(where: "run_id = ?", runID, what: "run \(runID)")
    }

    public func releaseBuilds(commit: String) throws -> [ReleaseBuild] {
        try releaseBuilds(where: "commit_sha = ?", commit.lowercased(), what: "commit \(commit)")
    }

    public func releaseBuilds(ipaSHA256: String) throws -> [ReleaseBuild] {
        try releaseBuilds(where: "ipa_sha256 = ?", ipaSHA256.lowercased(), what: "the .ipa \(ipaSHA256)")
    }

    private func releaseBuilds(where condition: String, _ key: String, what: String) throws -> [ReleaseBuild] {
        try read { db in
            try db.query(
                "SELECT record FROM release_builds WHERE \(condition) ORDER BY recorded_at, run_id, layer", [key]
            ) { row in
                try StoreJSON.decode(
                    ReleaseBuild.self, from: row.text(0) ?? "", path: location, what: "a release build of \(what)")
            }
        }
    }
}

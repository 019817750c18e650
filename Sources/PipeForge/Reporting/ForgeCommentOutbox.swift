import Foundation
import PipeCore

/// The pull request's one comment per pipeline through the outbox: the newest body of it is what is sent, and the
/// sender edits the comment whose id the store kept, or finds Pipe's own, or makes it (`PullRequestCommentUpdate`).
public enum ForgeCommentOutbox {
    public static let kind = "comment"

    /// What the outbox keeps of a comment: where it goes and its whole body.
    public struct Payload: Sendable, Equatable, Codable {
        public var pullRequest: Int
        public var pipeline: String
        public var body: String
    }

    /// `comment <forge> <repository> #<number> <pipeline>`.
    public static func target(forge: String, repository: String, pullRequest: Int, pipeline: String) -> String {
        "comment \(forge) \(repository) #\(pullRequest) \(pipeline)"
    }

    /// The key of the comment's id in the store's objects of the forge.
    public static func objectKey(repository: String, pullRequest: Int, pipeline: String) -> String {
        "comment \(repository) #\(pullRequest) \(pipeline)"
    }

    public static func draft(
        _ comment: PullRequestComment, pullRequest: Int, forge: ForgeConfig, at date: Date
    ) throws -> ForgeUpdate.Draft {
        let payload = Payload(pullRequest: pullRequest, pipeline: comment.pipeline, body: comment.body(for: forge.kind))
        let data = try JSONEncoder().encode(payload)
        return ForgeUpdate.Draft(
            forge: forge.name,
            target: target(
                forge: forge.name, repository: forge.repository, pullRequest: pullRequest, pipeline: comment.pipeline),
            kind: kind, payload: String(decoding: data, as: UTF8.self), runID: comment.runID.value, createdAt: date)
    }

    static func payload(of update: ForgeUpdate) -> Payload? {
        try? JSONDecoder().decode(Payload.self, from: Data(update.draft.payload.utf8))
    }
}

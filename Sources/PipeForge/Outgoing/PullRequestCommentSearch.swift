/// Finding Pipe's comment again. The store's comment id comes first (`edit` it; a 404 means it was deleted, and
/// only then Pipe searches). A search matches the marker on the first line and Pipe's own author together: anyone
/// who can comment can copy the marker, and a comment by someone else is never edited or taken as ours.
public enum PullRequestCommentSearch {
    /// Pipe's comment for `pipeline` among `comments` (the oldest, when a crash left two), or nil.
    public static func find(pipeline: String, in comments: [ForgeComment], author: ForgeAuthor) -> ForgeComment? {
        let marker = PullRequestComment.marker(pipeline: pipeline)
        return comments.first { comment in
            comment.author.isSameUser(as: author) && firstLine(of: comment.body) == marker
        }
    }

    private static func firstLine(of body: String) -> Substring {
        let line = body.prefix { $0 != "\n" && $0 != "\r\n" }
        return line.hasSuffix("\r") ? line.dropLast() : line
    }
}

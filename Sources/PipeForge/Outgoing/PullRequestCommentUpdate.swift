/// The steps that put the pipeline's comment on a pull request exactly once: edit the comment whose id the store
/// kept; when there is none or it is gone (404), search the pages for Pipe's own (marker and author), edit it when
/// found, else create it. A step sent twice changes nothing, since an edit is a whole body and a create is only
/// made when no comment of Pipe's was found.
public struct PullRequestCommentUpdate: Sendable {
    public var api: ForgeAPI
    public var pullRequest: Int
    public var pipeline: String
    public var body: String
    /// Who Pipe's comments are by (from `pipe forge check`'s identity).
    public var author: ForgeAuthor

    public init(api: ForgeAPI, pullRequest: Int, pipeline: String, body: String, author: ForgeAuthor) {
        self.api = api
        self.pullRequest = pullRequest
        self.pipeline = pipeline
        self.body = body
        self.author = author
    }

    public enum Step: Sendable, Equatable {
        /// Send this request, then call `next` with its answer.
        case send(ForgeRequest, Purpose)
        /// The comment holds the body; keep its id in the store.
        case done(commentID: Int)
        /// The forge refused for good; the answer's message says why.
        case failed(ForgeFailure)
    }

    public enum Purpose: Sendable, Equatable {
        case edit(commentID: Int, stored: Bool)
        case list(page: Int)
        case create
    }

    /// The first step: the stored id's edit, else the first page of the search.
    public func first(storedCommentID: Int?) throws -> Step {
        if let id = storedCommentID { return try edit(id, stored: true) }
        return try list(page: 1)
    }

    /// The step after `response` answered the step sent for `purpose` (a 2xx only: retries are the sender's).
    public func next(after purpose: Purpose, response: ForgeResponse) throws -> Step {
        let ok = (200..<300).contains(response.status)
        switch purpose {
        case .edit(let id, let stored):
            if ok { return .done(commentID: id) }
            // The stored comment was deleted (or is no longer ours to edit): find or make another.
            if stored && (response.status == 404 || response.status == 403) { return try list(page: 1) }
            return .failed(ForgeFailure(forge: api.forge, response: response))
        case .list(let page):
            guard ok else { return .failed(ForgeFailure(forge: api.forge, response: response)) }
            let comments = ForgeAnswers.comments(response, forge: api.forge)
            if let ours = PullRequestCommentSearch.find(pipeline: pipeline, in: comments, author: author) {
                return try edit(ours.id, stored: false)
            }
            if let nextPage = ForgeAnswers.nextPage(response), nextPage > page, !comments.isEmpty {
                return try list(page: nextPage)
            }
            return .send(try api.createComment(pullRequest: pullRequest, body: body), .create)
        case .create:
            guard ok, let id = ForgeAnswers.createdID(response) else {
                return .failed(ForgeFailure(forge: api.forge, response: response))
            }
            return .done(commentID: id)
        }
    }

    private func edit(_ id: Int, stored: Bool) throws -> Step {
        .send(try api.editComment(id: id, pullRequest: pullRequest, body: body), .edit(commentID: id, stored: stored))
    }

    private func list(page: Int) throws -> Step {
        .send(try api.listComments(pullRequest: pullRequest, page: page), .list(page: page))
    }
}

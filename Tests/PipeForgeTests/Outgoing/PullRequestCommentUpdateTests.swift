import PipeForge
import XCTest

/// The comment's steps: the stored id first, then a search by marker and author, then a create.
final class PullRequestCommentUpdateTests: XCTestCase {
    private let pipe = ForgeAuthor(id: 41, login: "pipe-bot")
    private let marker = PullRequestComment.marker(pipeline: "app-intents")

    private func update(_ forge: ForgeKind = .github) -> PullRequestCommentUpdate {
        PullRequestCommentUpdate(
            api: ForgeAPI(repository: ForgeFixtures.repository(forge)), pullRequest: 12, pipeline: "app-intents",
            body: marker + "\nnew", author: pipe)
    }

    private func listing(_ comments: [(Int, String, Int)], next: Int? = nil) -> ForgeResponse {
        let items = comments.map { #"{"id":\#($0.0),"body":"\#($0.1)","user":{"id":\#($0.2),"login":"u\#($0.2)"}}"# }
        return ForgeResponse(
            status: 200, headers: next.map { [("Link", "<https://api.github.com/x?page=\($0)>; rel=\"next\"")] } ?? [],
            body: Array(("[" + items.joined(separator: ",") + "]").utf8))
    }

    private func purpose(_ step: PullRequestCommentUpdate.Step) -> PullRequestCommentUpdate.Purpose? {
        if case .send(_, let purpose) = step { return purpose }
        return nil
    }

    func testTheStoredIDIsEditedFirst() throws {
        let step = try update().first(storedCommentID: 900)
        guard case .send(let request, .edit(900, true)) = step else { return XCTFail("\(step)") }
        XCTAssertEqual(request.path, "/repos/acme/reader/issues/comments/900")
        XCTAssertEqual(request.body?["body"]?.stringValue, marker + "\nnew")
        XCTAssertEqual(
            try update().next(after: .edit(commentID: 900, stored: true), response: ForgeResponse(status: 200)),
            .done(commentID: 900))
    }

    func testADeletedStoredCommentIsSearchedForThenCreated() throws {
        let updater = update()
        let afterGone = try updater.next(
            after: .edit(commentID: 900, stored: true), response: ForgeResponse(status: 404))
        XCTAssertEqual(purpose(afterGone), .list(page: 1))
        // Page 1: a forged marker by someone else; page 2: nothing of ours either.
        let page1 = try updater.next(after: .list(page: 1), response: listing([(1, marker, 7)], next: 2))
        XCTAssertEqual(purpose(page1), .list(page: 2))
        let page2 = try updater.next(after: .list(page: 2), response: listing([(2, "hello", 41)]))
        guard case .send(let create, .create) = page2 else { return XCTFail("\(page2)") }
        XCTAssertEqual(create.method, .post)
        XCTAssertEqual(create.path, "/repos/acme/reader/issues/12/comments")
        let created = ForgeResponse(status: 201, body: Array(#"{"id":555}"#.utf8))
        XCTAssertEqual(try updater.next(after: .create, response: created), .done(commentID: 555))
    }

    func testASearchFindsPipesOwnAndEditsIt() throws {
        let step = try update().next(
            after: .list(page: 1), response: listing([(1, marker, 7), (3, marker + "\\nold", 41)]))
        XCTAssertEqual(purpose(step), .edit(commentID: 3, stored: false))
        let gone = try update().next(after: .edit(commentID: 3, stored: false), response: ForgeResponse(status: 404))
        guard case .failed(let failure) = gone else { return XCTFail("a comment found just now and gone is an error") }
        XCTAssertEqual(failure.status, 404)
    }

    func testWithoutAStoredIDTheSearchComesFirstAndGitLabEditsWithPut() throws {
        let gitlab = update(.gitlab)
        XCTAssertEqual(purpose(try gitlab.first(storedCommentID: nil)), .list(page: 1))
        guard case .send(let request, _) = try gitlab.first(storedCommentID: 4) else { return XCTFail() }
        XCTAssertEqual(request.method, .put)
        XCTAssertEqual(request.path, "/projects/ios%2Fapps%2Freader/merge_requests/12/notes/4")
        let refused = try gitlab.next(
            after: .list(page: 1),
            response: ForgeResponse(status: 403, body: Array(#"{"message":"403 Forbidden"}"#.utf8)))
        XCTAssertEqual(refused, .failed(ForgeFailure(forge: .gitlab, status: 403, message: "403 Forbidden")))
    }
}

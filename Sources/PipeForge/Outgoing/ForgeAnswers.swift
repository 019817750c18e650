import Foundation

/// What Pipe reads back from a forge's successful answers: ids of created things, comments with their authors, the
/// next page, a pull request's head.
public enum ForgeAnswers {
    /// The `id` of what a create answered (a status, a comment, a note, a check run).
    public static func createdID(_ response: ForgeResponse) -> Int? {
        response.json?["id"]?.intValue
    }

    /// The comments of one page of `listComments`, with their authors; entries without an id are skipped.
    public static func comments(_ response: ForgeResponse, forge: ForgeKind) -> [ForgeComment] {
        guard let items = response.json?.arrayValue else { return [] }
        return items.compactMap { item in
            guard let id = item["id"]?.intValue else { return nil }
            let user = forge == .gitlab ? item["author"] : item["user"]
            let author = ForgeAuthor(
                id: user?["id"]?.intValue,
                login: (forge == .gitlab ? user?["username"] : user?["login"])?.stringValue ?? "")
            return ForgeComment(id: id, body: item["body"]?.stringValue ?? "", author: author)
        }
    }

    /// The next page to ask for, when the answer says there is one: GitHub's `Link: <…>; rel="next"`, GitLab's
    /// `X-Next-Page` (and its `Link` too). Gitea's comment list has no pages.
    public static func nextPage(_ response: ForgeResponse) -> Int? {
        if let next = response.header("X-Next-Page"), let page = Int(next.trimmingCharacters(in: .whitespaces)) {
            return page
        }
        guard let link = response.header("Link") else { return nil }
        for part in link.split(separator: ",") where part.contains("rel=\"next\"") {
            guard let open = part.firstIndex(of: "<"), let close = part.firstIndex(of: ">"), open < close else {
                continue
            }
            let url = part[part.index(after: open)..<close]
            guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { continue }
            for pair in query.split(separator: "&") where pair.hasPrefix("page=") {
                return Int(pair.dropFirst(5))
            }
        }
        return nil
    }

    /// The pull request's current head commit: GitHub and Gitea `head.sha`, GitLab `sha`.
    public static func pullRequestHead(_ response: ForgeResponse, forge: ForgeKind) -> CommitSHA? {
        let json = response.json
        let text = forge == .gitlab ? json?["sha"]?.stringValue : json?["head"]?["sha"]?.stringValue
        return text.flatMap { try? CommitSHA($0) }
    }
}

/// Who wrote a comment: the forge's user id (stable) and login (GitHub App bots: `<slug>[bot]`).
public struct ForgeAuthor: Sendable, Equatable {
    public var id: Int?
    public var login: String

    public init(id: Int?, login: String) {
        self.id = id
        self.login = login
    }

    /// The same user: by id when both have one, else by login (case-insensitive, as forges treat logins).
    public func isSameUser(as other: ForgeAuthor) -> Bool {
        if let id, let otherID = other.id { return id == otherID }
        return !login.isEmpty && login.lowercased() == other.login.lowercased()
    }
}

/// A comment as a forge lists it.
public struct ForgeComment: Sendable, Equatable {
    public var id: Int
    public var body: String
    public var author: ForgeAuthor

    public init(id: Int, body: String, author: ForgeAuthor) {
        self.id = id
        self.body = body
        self.author = author
    }
}

import Foundation
import PipeBasics

/// One GitHub check run for one gate of one run (named like the status context, so branch protection requires the
/// same name either way): its create and update requests, the annotation batches, and finding it again by its
/// `external_id` among the check runs of a commit made by Pipe's app.
public struct GitHubCheckRun: Sendable {
    public var repository: ForgeRepository
    public var report: ForgeGateReport
    public var sha: CommitSHA
    /// The run's Markdown summary (the pull request comment's body without its marker).
    public var comment: PullRequestComment?
    public var failingTests: [ForgeFailingTest]
    /// The folder the host ran the tests in, to make absolute test file paths relative to the repository.
    public var checkoutRoot: String?
    public var baseURL: String?

    public init(
        repository: ForgeRepository, report: ForgeGateReport, sha: CommitSHA, comment: PullRequestComment? = nil,
        failingTests: [ForgeFailingTest] = [], checkoutRoot: String? = nil, baseURL: String? = nil
    ) {
        self.repository = repository
        self.report = report
        self.sha = sha
        self.comment = comment
        self.failingTests = failingTests
        self.checkoutRoot = checkoutRoot
        self.baseURL = baseURL
    }

    /// At most this many annotations in all (10 requests); the rest are counted in the summary.
    public static let annotationLimit = 500

    /// `pipe:<pipeline>:<gate>:<run id>`: the same run's check run is updated, a new run gets its own.
    public var externalID: String {
        "pipe:\(report.pipeline):\(report.gate.rawValue)" + (report.isManual ? ":manual" : "")
            + ":\(report.runID?.value ?? "queued")"
    }

    // MARK: Requests

    /// `POST /repos/{o}/{r}/check-runs` with the state, the summary and (unless told not to) the first 50
    /// annotations.
    public func create(at now: Date, withAnnotations: Bool = true) throws -> ForgeRequest {
        var body: [(String, ForgeJSON)] = [
            ("name", .string(report.context)), ("head_sha", .string(sha.value)), ("external_id", .string(externalID)),
        ]
        if let url = report.targetURL(baseURL: baseURL, for: .github) { body.append(("details_url", .string(url))) }
        body += stateMembers(at: now)
        let first = withAnnotations ? Array(annotations.prefix(ForgeLimits.CheckRun.annotationsPerRequest)) : []
        body.append(("output", output(annotations: first)))
        return ForgeRequest(
            method: .post, path: try ForgePath.make(repository.segments + [.fixed("check-runs")]),
            headers: ForgeAPI.headers(.github, hasBody: true), body: .object(body))
    }

    /// `PATCH /repos/{o}/{r}/check-runs/{id}` with the state and the summary, without annotations: GitHub appends
    /// annotations on every update, so only `annotationBatches` carry them and an update sent twice is the same.
    public func update(checkRunID: Int, at now: Date) throws -> ForgeRequest {
        var body: [(String, ForgeJSON)] = [("name", .string(report.context)), ("external_id", .string(externalID))]
        if let url = report.targetURL(baseURL: baseURL, for: .github) { body.append(("details_url", .string(url))) }
        body += stateMembers(at: now)
        body.append(("output", output(annotations: [])))
        return ForgeRequest(
            method: .patch, path: try path(checkRunID: checkRunID), headers: ForgeAPI.headers(.github, hasBody: true),
            body: .object(body))
    }

    /// The annotations after the first 50, 50 to a request, each an update with the same title and summary.
    /// `skippingFirst` is how many the create already carried (50; 0 when the check run was made without them).
    public func annotationBatches(checkRunID: Int, skippingFirst: Int) throws -> [ForgeRequest] {
        let rest = Array(annotations.dropFirst(skippingFirst))
        let size = ForgeLimits.CheckRun.annotationsPerRequest
        return try stride(from: 0, to: rest.count, by: size).map { start in
            ForgeRequest(
                method: .patch, path: try path(checkRunID: checkRunID),
                headers: ForgeAPI.headers(.github, hasBody: true),
                body: .object([("output", output(annotations: Array(rest[start..<min(start + size, rest.count)])))]))
        }
    }

    /// The check runs Pipe's app made on this commit with this name: `GET …/commits/{sha}/check-runs` filtered
    /// by `check_name` and `app_id`.
    public func list(appID: Int, page: Int = 1) throws -> ForgeRequest {
        ForgeRequest(
            method: .get,
            path: try ForgePath.make(repository.segments + [.fixed("commits"), .sha(sha), .fixed("check-runs")]),
            query: [
                ("check_name", report.context), ("filter", "all"), ("app_id", String(appID)),
                ("per_page", String(ForgeAPI.pageSize)), ("page", String(max(1, page))),
            ],
            headers: ForgeAPI.headers(.github, hasBody: false))
    }

    /// This check run's id among a `list` answer: the `external_id` matches and the app is Pipe's (the filter
    /// is checked again here, since another app can set any `external_id`).
    public func find(in response: ForgeResponse, appID: Int) -> Int? {
        guard let runs = response.json?["check_runs"]?.arrayValue else { return nil }
        return runs.first { run in
            run["external_id"]?.stringValue == externalID && run["app"]?["id"]?.intValue == appID
                && run["head_sha"]?.stringValue?.lowercased() == sha.value
        }?["id"]?.intValue
    }

    private func path(checkRunID: Int) throws -> String {
        try ForgePath.make(repository.segments + [.fixed("check-runs"), .number("check run id", checkRunID)])
    }

    // MARK: Contents

    /// `status` (and `conclusion`, `completed_at`) for the gate's state. A gate Pipe could not judge concludes
    /// `failure` (checks have no `error`, and `neutral` would pass branch protection); its title says why.
    func stateMembers(at now: Date) -> [(String, ForgeJSON)] {
        let conclusion: String
        switch report.state {
        case .queued: return [("status", .string("queued"))]
        case .running, .awaitingSignoff: return [("status", .string("in_progress"))]
        case .passed: conclusion = "success"
        case .appFailed, .couldNotJudge: conclusion = "failure"
        case .cancelled, .superseded: conclusion = "cancelled"
        }
        return [
            ("status", .string("completed")), ("conclusion", .string(conclusion)),
            ("completed_at", .string(UTCTimestamp.iso8601(now))),
        ]
    }

    var title: String {
        let prefix: String
        switch report.state {
        case .couldNotJudge: prefix = "Pipe could not judge: "
        default: prefix = ""
        }
        return ForgeTextCut.cut(prefix + report.headline, toScalars: 255)
    }

    /// The summary: the comment's body within 65535 characters, plus what was not annotated.
    var summary: String {
        var note = ""
        let annotatable = failingTests.filter(isAnnotatable).count
        if annotatable > GitHubCheckRun.annotationLimit {
            note = "\n\n_\(annotatable - GitHubCheckRun.annotationLimit) more failing tests are not annotated._\n"
        }
        let limit = ForgeLimits.CheckRun.summary - note.unicodeScalars.count
        let text = comment?.body(limit: limit, withMarker: false) ?? ForgeMarkdown.plain(report.headline) + "\n"
        return text + note
    }

    private func output(annotations: [ForgeJSON]) -> ForgeJSON {
        var members: [(String, ForgeJSON)] = [("title", .string(title)), ("summary", .string(summary))]
        if !annotations.isEmpty { members.append(("annotations", .array(annotations))) }
        return .object(members)
    }

    private func isAnnotatable(_ test: ForgeFailingTest) -> Bool {
        test.repositoryPath(checkoutRoot: checkoutRoot) != nil && (test.line ?? 0) >= 1
    }

    /// One `failure` annotation at the file and line of each failing test that has both.
    var annotations: [ForgeJSON] {
        failingTests.filter(isAnnotatable).prefix(GitHubCheckRun.annotationLimit).map { test in
            let line = ForgeJSON.integer(test.line ?? 1)
            let head = String(test.message.unicodeScalars.prefix(ForgeLimits.CheckRun.annotationMessageBytes + 1))
            let shows = head.unicodeScalars.contains { $0.value > 0x20 && !(0x7F...0x9F).contains($0.value) }
            let message = shows ? head : "failed"
            let title = ForgeTextCut.oneLine(String(test.name.unicodeScalars.prefix(300)) + " (\(test.layer))")
            return .object([
                ("path", .string(test.repositoryPath(checkoutRoot: checkoutRoot) ?? "")),
                ("start_line", line), ("end_line", line), ("annotation_level", .string("failure")),
                (
                    "title",
                    .string(ForgeTextCut.cut(title, toScalars: 255))
                ),
                (
                    "message",
                    .string(
                        ForgeTextCut.cut(
                            ForgeMarkdown.visible(message), toBytes: ForgeLimits.CheckRun.annotationMessageBytes))
                ),
            ])
        }
    }
}

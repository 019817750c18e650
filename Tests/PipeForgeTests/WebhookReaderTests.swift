import Foundation
import PipeForge
import XCTest

/// Every payload of Tests/ForgeContract read as the forge sends it; the expected values were read from the files.
final class WebhookReaderTests: XCTestCase {
    func read(_ forge: ForgeKind, _ file: String, event: String) throws -> WebhookDelivery {
        try WebhookDeliveries.read(
            forge, event: event, body: try ForgeContractFiles.bytes("\(forge.rawValue)/webhooks/\(file)"))
    }

    func push(
        _ ref: String, _ kind: PushEvent.RefKind, _ name: String, _ before: String?, _ after: String?, _ repo: String,
        _ sender: String?
    ) -> WebhookEvent {
        .push(
            PushEvent(
                ref: ref, refKind: kind, name: name, before: before, after: after, repository: repo, sender: sender))
    }

    /// File → (event header, expected event), for every payload of one forge.
    func check(_ forge: ForgeKind, _ expected: [String: (String, WebhookEvent)]) throws {
        XCTAssertEqual(
            try ForgeContractFiles.payloadNames(forge), expected.keys.sorted(), "every \(forge) payload is read here")
        for (file, (event, value)) in expected.sorted(by: { $0.key < $1.key }) {
            let delivery = try read(forge, file, event: event)
            XCTAssertEqual(delivery.event, value, file)
            XCTAssertEqual(delivery.eventName, event, file)
            XCTAssertNotNil(delivery.deliveryID, file)
            XCTAssertEqual(delivery.bodyDigest.count, 64, file)
        }
    }

    let codertocat = "Codertocat/Hello-World"
    let readmePR = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"

    func githubPR(_ action: PullRequestAction, previous: String? = nil) -> WebhookEvent {
        .pullRequest(
            PullRequestEvent(
                action: action, number: 2, headSHA: readmePR, headRef: "changes", headRepository: codertocat,
                baseRef: "master", baseRepository: codertocat, isFromFork: false,
                title: "Update the README with new information.", author: "Codertocat", sender: "Codertocat",
                labels: ["bug"], merged: false, previousHeadSHA: previous))
    }

    func testEveryGitHubPayload() throws {
        try check(
            .github,
            [
                "check_run.rerequested.octokit.json": (
                    "check_run",
                    .checkRerequested(
                        CheckRerequest(
                            scope: .checkRun(id: 4, externalID: nil),
                            headSHA: "d6fde92930d4715a2b49857d24b940956b26d2d3",
                            headBranch: "master", appID: 2, repository: "github/hello-world", sender: "octocat"))
                ),
                "check_suite.requested.octokit.json": (
                    "check_suite", .ignored(reason: "check_suite requested: only rerequested is acted on")
                ),
                "check_suite.rerequested.octokit.json": (
                    "check_suite",
                    .checkRerequested(
                        CheckRerequest(
                            scope: .checkSuite(id: 118_578_147), headSHA: readmePR, headBranch: "changes",
                            appID: 29310, repository: codertocat, sender: "octocoders-linter[bot]"))
                ),
                "ping.octokit.json": (
                    "ping", .ping(PingEvent(hookID: 109_948_940, appID: nil, repository: "Octocoders/Hello-World"))
                ),
                "ping.with-app_id.octokit.json": (
                    "ping", .ping(PingEvent(hookID: 109_948_940, appID: 29310, repository: "Octocoders/Hello-World"))
                ),
                "pull_request.closed.octokit.json": ("pull_request", githubPR(.closed)),
                "pull_request.opened.octokit.json": ("pull_request", githubPR(.opened)),
                "pull_request.reopened.octokit.json": ("pull_request", githubPR(.reopened)),
                "pull_request.synchronize.octokit.json": (
                    "pull_request", githubPR(.synchronized, previous: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e")
                ),
                "push.branch-created.octokit.json": (
                    "push",
                    push(
                        "refs/heads/master", .branch, "master", nil, "6113728f27ae82c7b1a177c8d03f9e96e0adf246",
                        codertocat, "Codertocat")
                ),
                "push.branch-deleted.go-scm.json": (
                    "push",
                    push(
                        "refs/heads/feature-branch", .branch, "feature-branch",
                        "d2b75aa7797ec26b088fa2dd527e9d2c052fcedd", nil, "bradrydzewski/drone-test-go", "bradrydzewski")
                ),
                "push.normal.go-scm.json": (
                    "push",
                    push(
                        "refs/heads/master", .branch, "master", "a10867b14bb761a232cd80139fbd4c0d33264240",
                        "199eddf46df50de8d02e99bf1c5fdb4101338224", codertocat, "Codertocat")
                ),
                "push.normal.probot.json": (
                    "push",
                    push(
                        "refs/heads/bkeepers-patch-3", .branch, "bkeepers-patch-3",
                        "f5cd85485562ec4b0855c77cf44ecbed40c8e689", "738a951dba49dfec487000ef85ae80291d7ab32a",
                        "bkeepers-inc/test", "bkeepers")
                ),
                "push.tag-created.go-scm.json": (
                    "push",
                    push(
                        "refs/tags/v0.0.1", .tag, "v0.0.1", nil, "d2b75aa7797ec26b088fa2dd527e9d2c052fcedd",
                        "bradrydzewski/drone-test-go", "bradrydzewski")
                ),
                "push.tag-deleted.octokit.json": (
                    "push",
                    push(
                        "refs/tags/simple-tag", .tag, "simple-tag", "6113728f27ae82c7b1a177c8d03f9e96e0adf246", nil,
                        codertocat, "Codertocat")
                ),
            ])
    }

    func giteaPR(_ action: PullRequestAction, title: String, merged: Bool = false) -> WebhookEvent {
        .pullRequest(
            PullRequestEvent(
                action: action, number: 1, headSHA: "2eba238e33607c1fa49253182e9fff42baafa1eb", headRef: "feature",
                headRepository: "jcitizen/my-repo", baseRef: "master", baseRepository: "jcitizen/my-repo",
                isFromFork: false, title: title, author: "jcitizen", sender: "jcitizen", merged: merged))
    }

    func testEveryGiteaPayload() throws {
        let ignored = "the push event of the same ref is acted on instead"
        try check(
            .gitea,
            [
                "branch_delete.go-scm.json": ("delete", .ignored(reason: "delete: \(ignored)")),
                "tag_create.go-scm.json": ("create", .ignored(reason: "create: \(ignored)")),
                "pull-request-event.go-playground.json": (
                    "pull_request",
                    .pullRequest(
                        PullRequestEvent(
                            action: .opened, number: 2, headSHA: "48e773f892a831faa47c0a160d1b7f0cd369ae2a",
                            headRef: "master", headRepository: "example2/example", baseRef: "master",
                            baseRepository: "example/example", isFromFork: true, title: "update", author: "example2",
                            sender: "example2"))
                ),
                "pull_request_closed.go-scm.json": ("pull_request", giteaPR(.closed, title: "Add LICENSE File")),
                "pull_request_merged.go-scm.json": (
                    "pull_request", giteaPR(.closed, title: "Add LICENSE File", merged: true)
                ),
                "pull_request_opened.go-scm.json": ("pull_request", giteaPR(.opened, title: "Add License File")),
                "pull_request_reopened.go-scm.json": ("pull_request", giteaPR(.reopened, title: "Add LICENSE File")),
                "pull_request_synchronized.go-scm.json": (
                    "pull_request", giteaPR(.synchronized, title: "Add License File")
                ),
                "push-event.go-playground.json": (
                    "push",
                    push(
                        "refs/heads/master", .branch, "master", nil, "67b56589a45103f891bdee7c0546e5d40bc02001",
                        "example/example", "example")
                ),
                "push.go-scm.json": (
                    "push",
                    push(
                        "refs/heads/master", .branch, "master", "9836a96a253cce25d17988fcf41b8c4205cf779f",
                        "4522cbcefc20728a5b72b3a86af35e608622c514", "gogits/hello-world", "unknwon")
                ),
            ])
    }

    func gitlabMR(_ action: PullRequestAction, merged: Bool = false) -> WebhookEvent {
        .pullRequest(
            PullRequestEvent(
                action: action, number: 1, headSHA: "c4c79227ed610f1151f05bbc5be33b4f340d39c8", headRef: "feature",
                headRepository: "gitlab-org/hello-world", baseRef: "master", baseRepository: "gitlab-org/hello-world",
                isFromFork: false, title: "update readme", author: nil, sender: "sytses", merged: merged))
    }

    func testEveryGitLabPayload() throws {
        let diaspora = push(
            "refs/heads/master", .branch, "master", "95790bf891e76fee5e1747ab589903a6a1f80f22",
            "da1560886d4f094c3e6c9ef40349f7d38b5d27d7", "mike/diaspora", "jsmith")
        let tag = push(
            "refs/tags/v1.0.0", .tag, "v1.0.0", nil, "82b3d5ae55f7080f1e6022629cdb57bfae7cccc7", "jsmith/example",
            "jsmith")
        try check(
            .gitlab,
            [
                "branch_delete.go-scm.json": (
                    "Push Hook",
                    push(
                        "refs/heads/feature", .branch, "feature", "c4c79227ed610f1151f05bbc5be33b4f340d39c8", nil,
                        "gitlab-org/hello-world", "sytses")
                ),
                "merge-request-hook.open.docs.json": (
                    "Merge Request Hook",
                    .pullRequest(
                        PullRequestEvent(
                            action: .opened, number: 16, headSHA: "e59094b8de0f2f91abbe4760a52d9137260252d8",
                            headRef: "feature/booking-validation", headRepository: "flightjs/flight-management",
                            baseRef: "main", baseRepository: "flightjs/flight-management", isFromFork: false,
                            title: "Add input validation to booking form", author: nil, sender: "agarcia",
                            labels: ["enhancement"]))
                ),
                "merge_request.go-gitlab.json": (
                    "Merge Request Hook",
                    .pullRequest(
                        PullRequestEvent(
                            action: .opened, number: 1, headSHA: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
                            headRef: "ms-viewport", headRepository: "awesome_space/awesome_project",
                            baseRef: "master", baseRepository: "awesome_space/awesome_project", isFromFork: false,
                            title: "MS-Viewport", author: nil, sender: "user1", labels: ["API"],
                            addedLabels: ["Platform"]))
                ),
                "merge_request_comment_create.go-scm.json": (
                    "Note Hook", .ignored(reason: "Note Hook is not an event Pipe acts on")
                ),
                "note_merge_request.go-gitlab.json": (
                    "Note Hook", .ignored(reason: "Note Hook is not an event Pipe acts on")
                ),
                "pull_request_close.go-scm.json": ("Merge Request Hook", gitlabMR(.closed)),
                "pull_request_create.go-scm.json": ("Merge Request Hook", gitlabMR(.opened)),
                "pull_request_merge.go-scm.json": ("Merge Request Hook", gitlabMR(.closed, merged: true)),
                "pull_request_reopen.go-scm.json": ("Merge Request Hook", gitlabMR(.reopened)),
                "push-hook.docs.json": ("Push Hook", diaspora),
                "push.go-gitlab.json": ("Push Hook", diaspora),
                "push.go-scm.json": (
                    "Push Hook",
                    push(
                        "refs/heads/master", .branch, "master", "9217710ce8c7e1eae7a5d1c45f6e43e1c769f866",
                        "2adc9465c4edfc33834e173fe89436a7cb899a1d", "gitlab-org/hello-world", "sytses")
                ),
                "tag-push-hook.docs.json": ("Tag Push Hook", tag),
                "tag_push.go-gitlab.json": ("Tag Push Hook", tag),
                "tag_create.go-scm.json": (
                    "Tag Push Hook",
                    push(
                        "refs/tags/v1.0.0", .tag, "v1.0.0", nil, "2adc9465c4edfc33834e173fe89436a7cb899a1d",
                        "gitlab-org/hello-world", "sytses")
                ),
            ])
    }

    func testTheDeliveryIdAndEventComeFromTheForgesHeaders() throws {
        let body = try ForgeContractFiles.bytes("gitea/webhooks/push.go-scm.json")
        let forgejo = try WebhookDeliveries.read(
            .gitea, event: "push", body: body,
            extra: [.init("X-Forgejo-Event", "push"), .init("X-Forgejo-Delivery", "forgejo-delivery-1")])
        XCTAssertEqual(forgejo.deliveryID, "forgejo-delivery-1", "Forgejo's own header first")
        let github = try read(.github, "ping.octokit.json", event: "ping")
        XCTAssertEqual(github.deliveryID, "72d3162e-cc78-11e3-81ab-4c9367dc0958")
        XCTAssertEqual(github.forge, .github)
        XCTAssertEqual(
            try read(.github, "pull_request.opened.octokit.json", event: "issues").event,
            .ignored(reason: "issues is not an event Pipe acts on"))
    }

    func testNewCommitsOnAGitLabMergeRequestAreSynchronizedAndAddedLabelsAreLabeled() throws {
        let path = "gitlab/webhooks/merge_request.go-gitlab.json"
        let update = try WebhookDeliveries.edited(path) { object in
            var attributes = object["object_attributes"] as? [String: Any] ?? [:]
            attributes["action"] = "update"
            attributes["oldrev"] = "95790bf891e76fee5e1747ab589903a6a1f80f22"
            object["object_attributes"] = attributes
        }
        let synchronized = try WebhookDeliveries.pullRequest(.gitlab, event: "Merge Request Hook", body: update)
        XCTAssertEqual(synchronized.action, .synchronized)
        XCTAssertEqual(synchronized.previousHeadSHA, "95790bf891e76fee5e1747ab589903a6a1f80f22")
        XCTAssertEqual(synchronized.headFetchRef(.gitlab), "refs/merge-requests/1/head")

        let labeled = try WebhookDeliveries.edited(path) { object in
            var attributes = object["object_attributes"] as? [String: Any] ?? [:]
            attributes["action"] = "update"
            object["object_attributes"] = attributes
        }
        let event = try WebhookDeliveries.pullRequest(.gitlab, event: "Merge Request Hook", body: labeled)
        XCTAssertEqual(event.action, .labeled)
        XCTAssertEqual(event.addedLabels, ["Platform"])
        XCTAssertEqual(event.sender, "user1")
    }

    func testAGitHubLabelAndAGiteaLabelUpdateAreLabeled() throws {
        let github = try WebhookDeliveries.edited("github/webhooks/pull_request.opened.octokit.json") { object in
            object["action"] = "labeled"
            object["label"] = ["name": "pipe-approved", "id": 1]
        }
        let event = try WebhookDeliveries.pullRequest(.github, event: "pull_request", body: github)
        XCTAssertEqual(event.action, .labeled)
        XCTAssertEqual(event.addedLabels, ["pipe-approved"])
        XCTAssertEqual(event.sender, "Codertocat")
        XCTAssertEqual(event.headFetchRef(.github), "refs/pull/2/head")

        let gitea = try WebhookDeliveries.edited("gitea/webhooks/pull_request_opened.go-scm.json") { object in
            object["action"] = "label_updated"
            var request = object["pull_request"] as? [String: Any] ?? [:]
            request["labels"] = [["name": "pipe-approved", "id": 3]]
            object["pull_request"] = request
        }
        let giteaEvent = try WebhookDeliveries.pullRequest(
            .gitea, event: "pull_request", body: gitea, extra: [.init("X-Gitea-Event-Type", "pull_request_label")])
        XCTAssertEqual(giteaEvent.action, .labeled)
        XCTAssertEqual(giteaEvent.addedLabels, ["pipe-approved"], "Gitea sends the labels now, not the one added")
    }

    func testForksAreToldByTheHeadRepositoryOrProject() throws {
        let deletedFork = try WebhookDeliveries.edited("github/webhooks/pull_request.opened.octokit.json") { object in
            var request = object["pull_request"] as? [String: Any] ?? [:]
            var head = request["head"] as? [String: Any] ?? [:]
            head["repo"] = NSNull()
            request["head"] = head
            object["pull_request"] = request
        }
        let github = try WebhookDeliveries.pullRequest(.github, event: "pull_request", body: deletedFork)
        XCTAssertTrue(github.isFromFork, "a head repository GitHub no longer shows is a fork's")

        let forkMR = try WebhookDeliveries.edited("gitlab/webhooks/pull_request_create.go-scm.json") { object in
            var attributes = object["object_attributes"] as? [String: Any] ?? [:]
            attributes["source_project_id"] = 999
            var source = attributes["source"] as? [String: Any] ?? [:]
            source["path_with_namespace"] = "mallory/hello-world"
            attributes["source"] = source
            object["object_attributes"] = attributes
        }
        let gitlab = try WebhookDeliveries.pullRequest(.gitlab, event: "Merge Request Hook", body: forkMR)
        XCTAssertTrue(gitlab.isFromFork)
        XCTAssertEqual(gitlab.headRepository, "mallory/hello-world")
        XCTAssertEqual(gitlab.baseRepository, "gitlab-org/hello-world")
    }
}

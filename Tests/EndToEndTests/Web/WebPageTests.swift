import Foundation
import PipeTestSupport
import XCTest

/// `pipe web serve` end to end: a real run of app-intents against the emulated Mac, its pages and JSON twins over
/// real HTTP (curl, with a cookie jar as a browser keeps one), the page's own sign-in and the `shortcuts`
/// checklist signed from its form with the rules of `pipe signoff`.
final class WebPageTests: WebPageTestCase {
    func testRunsListAndRunPageNeedSignInAndShowTheRealRunWithJSONTwins() throws {
        try start()
        let anonymous = try request("runs")
        XCTAssertEqual(anonymous.status, 303, anonymous.headers)
        XCTAssertTrue(anonymous.headers.contains("Location: /sign-in?next="), anonymous.headers)
        XCTAssertEqual(try signIn("alice", password: "wrong-password").status, 401)
        let signedIn = try signIn("alice")
        XCTAssertEqual(signedIn.status, 303, signedIn.body)
        XCTAssertTrue(signedIn.headers.contains("HttpOnly; SameSite=Lax"), signedIn.headers)

        let runID = try lastRunID()
        let runs = try request("runs")
        XCTAssertEqual(runs.status, 200)
        XCTAssertTrue(runs.body.contains(">\(runID)</a>"), runs.body)
        XCTAssertTrue(runs.headers.contains("Content-Security-Policy: default-src 'none'; script-src 'self'"))
        XCTAssertTrue(runs.body.contains("pending-signoff"), "the release gate awaits shortcuts")
        let twin = try request("runs?format=json")
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(twin.body.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.first?["runID"] as? String, runID)
        XCTAssertEqual(rows.first?["merge"] as? String, "passed")
        XCTAssertEqual(rows.first?["release"] as? String, "pending-signoff")
        XCTAssertEqual(
            try request("runs?format=json&pipeline=other").body.trimmingCharacters(in: .whitespacesAndNewlines),
            "[\n\n]")

        let page = try request("runs/\(runID)")
        XCTAssertEqual(page.status, 200)
        for expected in ["app-intents", "shortcuts</a> (checklist)", "Artifacts", "awaiting-signoff"] {
            XCTAssertTrue(page.body.contains(expected), "missing \(expected)")
        }
        XCTAssertTrue(page.body.contains("<dt>Simulator</dt><dd>iPhone"), "the simulator by its name")
        XCTAssertFalse(page.body.contains("SimulatorChoice("), "no Swift debug text on the page")
        let runTwin = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(try request("runs/\(runID)?format=json").body.utf8))
                as? [String: Any])
        XCTAssertEqual((runTwin["record"] as? [String: Any])?["runID"] as? String, runID)
        XCTAssertEqual((runTwin["gates"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual(try request("runs/nope").status, 404)
    }

    func testDownloadsNeedASignedInUserEvenWhenAnyoneMayRead() throws {
        try start(read: "anyone")
        let runID = try lastRunID()
        let twin = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(try request("runs/\(runID)?format=json").body.utf8))
                as? [String: Any])
        let artifacts = try XCTUnwrap(twin["artifacts"] as? [[String: Any]])
        let log = try XCTUnwrap(artifacts.first { ($0["kind"] as? String) == "log" }?["path"] as? String)
        XCTAssertEqual(try request("runs/\(runID)/artifacts/\(log)").status, 401)
        XCTAssertEqual(try signIn("bob").status, 303)
        let download = try request("runs/\(runID)/artifacts/\(log)")
        XCTAssertEqual(download.status, 200, download.body)
        XCTAssertTrue(download.headers.contains("Content-Disposition: attachment"), download.headers)
        XCTAssertTrue(download.headers.contains("X-Content-Type-Options: nosniff"), download.headers)
        XCTAssertTrue(download.headers.contains("Content-Security-Policy: sandbox"), download.headers)
        XCTAssertEqual(try request("runs/\(runID)/artifacts/../../.pipe/web-users").status, 400)
    }

    func testTheChecklistIsSignedFromItsFormWithTheRulesOfPipeSignoff() throws {
        try start()
        let runID = try lastRunID()
        XCTAssertEqual(try signIn("alice").status, 303)
        let checklist = try request("runs/\(runID)/layers/shortcuts")
        XCTAssertEqual(checklist.status, 200)
        XCTAssertTrue(checklist.body.contains("os_version"), checklist.body)
        let token = csrf(checklist.body)
        let action = "runs/\(runID)/layers/shortcuts/signoff"

        let withoutToken = try request(action, form: [("result", "pass"), ("field.os_version", "17.5")])
        XCTAssertEqual(withoutToken.status, 403)
        XCTAssertTrue(withoutToken.body.contains("CSRF"), withoutToken.body)

        let missing = try request(action, form: [("csrf", token), ("result", "pass"), ("field.os_version", "17.5")])
        XCTAssertEqual(missing.status, 422, missing.body)
        XCTAssertTrue(missing.body.contains("missing app_build"), missing.body)
        XCTAssertTrue(missing.body.contains("value=\"17.5\""), "what was typed is kept")
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "release"]).exitCode, 4, "nothing was recorded")

        let bobJar = project.url.appendingPathComponent(".pipe/cookies-bob")
        XCTAssertEqual(try signIn("bob", jar: bobJar).status, 303)
        let bobPage = try request("runs/\(runID)/layers/shortcuts", jar: bobJar)
        XCTAssertTrue(bobPage.body.contains("bob may not sign off app-intents/shortcuts"), bobPage.body)
        let bob = try request(
            action,
            form: [
                ("csrf", csrf(bobPage.body)), ("result", "pass"), ("field.os_version", "17.5"),
                ("field.app_build", "42"),
            ], jar: bobJar)
        XCTAssertEqual(bob.status, 403, bob.body)

        let signed = try request(
            action,
            form: [
                ("csrf", token), ("result", "pass"), ("field.os_version", "17.5"), ("field.app_build", "1.0 (42)"),
                ("note", "<b>found</b> in Shortcuts"),
            ])
        XCTAssertEqual(signed.status, 303, signed.body)
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "release"]).exitCode, 0, "the release gate turned")
        let after = try request("runs/\(runID)/layers/shortcuts?signed=1")
        XCTAssertTrue(after.body.contains("&lt;b&gt;found&lt;/b&gt; in Shortcuts"), after.body)
        let show = try project.pipe(["runs", "show", "last", "--json"])
        XCTAssertTrue(show.stdout.contains("\"signedBy\" : \"alice\"") || show.stdout.contains("alice"), show.stdout)

        let audit = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [
                project.url.appendingPathComponent(".pipe/pipe.db").path,
                "SELECT entry FROM audit_log WHERE source='web'",
            ])
        let lines = audit.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, audit.stdout)
        XCTAssertTrue(lines.contains { $0.contains("\"user\":\"bob\"") && $0.contains("no right") }, audit.stdout)
        XCTAssertTrue(lines.contains { $0.contains("\"address\":\"127.0.0.1\"") && $0.contains("recorded #") })
    }

    func testTheControllerServesThePageOnItsOneListenerAndItsSignOffTurnsTheGate() throws {
        try start(underController: true)
        let output = server?.chunks().map(\.text).joined() ?? ""
        XCTAssertTrue(output.contains("web page at /"), output)
        let runID = try lastRunID()
        XCTAssertEqual(try request("runs").status, 303, "reading needs a signed-in user")
        XCTAssertEqual(try signIn("alice").status, 303)
        let checklist = try request("runs/\(runID)/layers/shortcuts")
        XCTAssertEqual(checklist.status, 200, checklist.body)
        let signed = try request(
            "runs/\(runID)/layers/shortcuts/signoff",
            form: [
                ("csrf", csrf(checklist.body)), ("result", "pass"), ("field.os_version", "17.5"),
                ("field.app_build", "42"),
            ])
        XCTAssertEqual(signed.status, 303, signed.body)
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "release"]).exitCode, 0, "the release gate turned")
        let row = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(try request("runs?format=json").body.utf8)) as? [[String: Any]])
        XCTAssertEqual(row.first?["release"] as? String, "passed")
    }

    func testTheControllerRefusesListenerKeysInItsWebSection() throws {
        project = try makeProject()
        try """
        http:
          port: 0
        web:
          port: 8090
          users-file: web-users
        """.write(to: project.url.appendingPathComponent("controller.yml"), atomically: true, encoding: .utf8)
        let check = try project.pipe(["controller", "--check"])
        XCTAssertEqual(check.exitCode, 2, check.combined)
        XCTAssertTrue(check.stderr.contains("controller.yml:4:"), check.stderr)
        XCTAssertTrue(check.stderr.contains("move this key into `http:`"), check.stderr)
    }
}

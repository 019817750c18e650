import Foundation
import PipeTestSupport
import XCTest

/// GitHub App authentication on the stand-in: a JWT checked against the app's public key, installation tokens
/// with an expiry, and check runs that only an installation may write.
final class ForgeStandInAppTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var key: ForgeStandInAppKey!
    private var standIn: ForgeStandIn!
    private let appID = 4242
    private let sha = "6dcb09b5b57875f334f61aebed695e2e4193db5e"

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "forge-standin-app")
        key = try ForgeStandInAppKey(in: folder.url)
        standIn = try ForgeStandIn.start(
            .init(githubAppID: appID, githubAppPublicKey: key.publicKey, githubInstallations: [77]))
    }

    override func tearDown() {
        standIn?.stop()
        folder?.remove()
    }

    private func exchange(_ jwt: String, installation: Int = 77) throws -> LoopbackHTTPResponse {
        try standIn.call(
            .github, "POST", "/app/installations/\(installation)/access_tokens",
            credential: .headers(["Authorization": "Bearer \(jwt)", "User-Agent": "pipe-test"]))
    }

    private func installationToken() throws -> String {
        let answer = try exchange(key.jwt(appID: appID))
        XCTAssertEqual(answer.status, 201, answer.text)
        return try XCTUnwrap(answer.jsonObject?["token"] as? String)
    }

    private func asInstallation(_ token: String) -> ForgeStandIn.Credential {
        .headers(["Authorization": "token \(token)", "User-Agent": "pipe-test"])
    }

    func testAJWTSignedWithTheAppKeyGetsAnInstallationTokenWithAnExpiry() throws {
        let answer = try exchange(key.jwt(appID: appID))
        XCTAssertEqual(answer.status, 201, answer.text)
        XCTAssertTrue((answer.jsonObject?["token"] as? String)?.hasPrefix("ghs_") == true)
        let expiry = try XCTUnwrap(answer.jsonObject?["expires_at"] as? String)
        let expiresAt = try XCTUnwrap(ISO8601DateFormatter().date(from: expiry))
        XCTAssertEqual(expiresAt.timeIntervalSinceNow, 3600, accuracy: 120)
        XCTAssertEqual(try standIn.invalidRequests().map(\.description), [])
    }

    func testABadJWTIsRefused() throws {
        try FileManager.default.createDirectory(at: folder.appending("other"), withIntermediateDirectories: true)
        let other = try ForgeStandInAppKey(in: folder.appending("other"))
        let now = Int(Date().timeIntervalSince1970)
        let cases: [(String, String, String)] = [
            ("signed by another key", try other.jwt(appID: appID), "could not be decoded"),
            ("expired", try key.jwt(appID: appID, issuedAt: now - 1200), "'exp'"),
            ("valid for 15 minutes", try key.jwt(appID: appID, lifetime: 900), "too far in the future"),
            ("another app's", try key.jwt(appID: appID + 1), "'iss'"),
            ("not a JWT", "ghp_standin", "could not be decoded"),
        ]
        for (name, jwt, message) in cases {
            let answer = try exchange(jwt)
            XCTAssertEqual(answer.status, 401, "\(name): \(answer.text)")
            XCTAssertTrue(answer.text.contains(message), "\(name): \(answer.text)")
        }
        XCTAssertEqual(try exchange(key.jwt(appID: appID), installation: 78).status, 404, "unknown installation")
        XCTAssertEqual(try standIn.invalidRequests().count, cases.count + 1)
    }

    func testCheckRunsAreWrittenByTheInstallationAndFoundByExternalID() throws {
        let token = try installationToken()
        let created = try standIn.call(
            .github, "POST", "/repos/octo/app/check-runs",
            json: [
                "name": "pipe/app-intents", "head_sha": sha, "external_id": "run-17", "status": "in_progress",
            ], credential: asInstallation(token))
        XCTAssertEqual(created.status, 201, created.text)
        let id = try XCTUnwrap(created.jsonObject?["id"] as? Int)
        let annotations = (1...50).map {
            [
                "path": "Tests/IntentTests.swift", "start_line": $0, "end_line": $0, "annotation_level": "failure",
                "message": "failed \($0)",
            ] as [String: Any]
        }
        let completed = try standIn.call(
            .github, "PATCH", "/repos/octo/app/check-runs/\(id)",
            json: [
                "conclusion": "failure",
                "output": ["title": "2 of 19 tests failed", "summary": "…", "annotations": annotations],
            ] as [String: Any], credential: asInstallation(token))
        XCTAssertEqual(completed.status, 200, completed.text)
        XCTAssertEqual(completed.jsonObject?["status"] as? String, "completed")
        XCTAssertEqual((completed.jsonObject?["output"] as? [String: Any])?["annotations_count"] as? Int, 50)
        let listed = try standIn.call(
            .github, "GET", "/repos/octo/app/commits/\(sha)/check-runs?check_name=pipe/app-intents&app_id=\(appID)",
            credential: asInstallation(token))
        let runs = try XCTUnwrap(listed.jsonObject?["check_runs"] as? [[String: Any]])
        XCTAssertEqual(runs.map { $0["external_id"] as? String }, ["run-17"])
        XCTAssertEqual(try standIn.invalidRequests().map(\.description), [])
    }

    func testCheckRunsBreakingTheDocumentedLimitsAreRefused() throws {
        let token = try installationToken()
        let note: [String: Any] = [
            "path": "a.swift", "start_line": 1, "end_line": 1, "annotation_level": "failure", "message": "m",
        ]
        let cases: [(String, [String: Any], String)] = [
            (
                "51 annotations",
                ["output": ["title": "t", "summary": "s", "annotations": Array(repeating: note, count: 51)]],
                "maximum is 50"
            ),
            (
                "a 65536-char summary", ["output": ["title": "t", "summary": String(repeating: "s", count: 65536)]],
                "maximum is 65535"
            ),
            ("completed without a conclusion", ["status": "completed"], "oneOf"),
            ("an output without a title", ["output": ["summary": "s"]], "output/title"),
            (
                "a wrong annotation level",
                [
                    "output": [
                        "title": "t", "summary": "s",
                        "annotations": [
                            note.merging(["annotation_level": "error"]) { $1 }
                        ],
                    ]
                ], "is not a member"
            ),
        ]
        for (name, fields, message) in cases {
            let body = fields.merging(["name": "pipe/x", "head_sha": sha]) { first, _ in first }
            let answer = try standIn.call(
                .github, "POST", "/repos/octo/app/check-runs", json: body, credential: asInstallation(token))
            XCTAssertEqual(answer.status, 422, "\(name): \(answer.text)")
            XCTAssertTrue(answer.text.contains(message), "\(name): \(answer.text)")
        }
        XCTAssertEqual(try standIn.invalidRequests().count, cases.count)
        XCTAssertEqual(try standIn.objects(.github, "check_runs").count, 0)
    }

    func testCheckRunsNeedAnInstallationTokenAndItExpires() throws {
        let withPersonalToken = try standIn.call(
            .github, "POST", "/repos/octo/app/check-runs", json: ["name": "pipe/x", "head_sha": sha])
        XCTAssertEqual(withPersonalToken.status, 403, withPersonalToken.text)
        XCTAssertTrue(withPersonalToken.text.contains("You must authenticate via a GitHub App."))
        let token = try installationToken()
        let body: [String: Any] = ["name": "pipe/x", "head_sha": sha]
        let fresh = try standIn.call(
            .github, "POST", "/repos/octo/app/check-runs", json: body, credential: asInstallation(token))
        XCTAssertEqual(fresh.status, 201, fresh.text)
        try standIn.advanceClock(seconds: 3601)
        let expired = try standIn.call(
            .github, "POST", "/repos/octo/app/check-runs", json: body, credential: asInstallation(token))
        XCTAssertEqual(expired.status, 401, expired.text)
        XCTAssertEqual(expired.jsonObject?["message"] as? String, "Bad credentials")
    }
}

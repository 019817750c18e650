import Foundation
import PipeChatOps
import PipeHTTP
import XCTest

/// Slack's signature, its timestamp window and replays; Mattermost's token.
final class RequestVerifierTests: XCTestCase {
    // Slack's own worked example ("Verifying requests from Slack", api.slack.com/authentication/verifying-requests-from-slack).
    private let slackSecret = "8f742231b10e8888abcd99yyyzzz85a5"
    private let slackTimestamp = "1531420618"
    private let slackBody =
        "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
        + "&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
        + "&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
        + "&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
    private let slackSignature = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"

    private var exampleTime: Date { Date(timeIntervalSince1970: 1_531_420_618) }

    private func request(body: String, headers: [String: String], repeated: Set<String> = []) -> HTTPRequest {
        HTTPRequest(
            head: HTTPRequestHead(
                method: "POST", path: "/chatops/slash",
                headers: Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) }),
                repeatedHeaders: repeated, remoteAddress: "127.0.0.1", receivedAt: exampleTime),
            body: Array(body.utf8))
    }

    private func failure(_ verifier: RequestVerifier, _ request: HTTPRequest, form: [String: String] = [:])
        -> VerificationFailure?
    {
        do {
            try verifier.verify(request, form: form, now: exampleTime)
            return nil
        } catch {
            return error
        }
    }

    private func slackRequest(
        body: String? = nil, timestamp: String? = nil, signature: String? = nil
    ) -> HTTPRequest {
        request(
            body: body ?? slackBody,
            headers: [
                "X-Slack-Request-Timestamp": timestamp ?? slackTimestamp,
                "X-Slack-Signature": signature ?? slackSignature,
            ])
    }

    private func status(_ verifier: RequestVerifier, _ request: HTTPRequest, now: Date) -> Int? {
        do {
            try verifier.verify(request, form: [:], now: now)
            return nil
        } catch {
            return error.status
        }
    }

    func testSlacksWorkedExampleVerifies() {
        XCTAssertEqual(
            RequestVerifier.slackSignature(
                secret: slackSecret, timestamp: slackTimestamp, body: Array(slackBody.utf8)), slackSignature)
        let verifier = RequestVerifier(dialect: .slack, secret: slackSecret)
        XCTAssertNil(status(verifier, slackRequest(), now: exampleTime))
    }

    func testAForgedOrTamperedRequestIsRefused() {
        let verifier = RequestVerifier(dialect: .slack, secret: slackSecret)
        var forged = Array(slackSignature)
        forged[forged.count - 1] = forged.last == "3" ? "4" : "3"
        XCTAssertEqual(status(verifier, slackRequest(signature: String(forged)), now: exampleTime), 401)
        XCTAssertEqual(
            status(
                verifier, slackRequest(body: slackBody.replacingOccurrences(of: "text=", with: "text=run")),
                now: exampleTime),
            401, "a changed body")
        XCTAssertEqual(
            status(verifier, slackRequest(timestamp: "1531420619"), now: exampleTime), 401, "a changed timestamp")
        XCTAssertEqual(
            status(verifier, slackRequest(signature: "v1=" + slackSignature.dropFirst(3)), now: exampleTime), 401)
        XCTAssertEqual(status(verifier, slackRequest(signature: "v0=zz"), now: exampleTime), 401)
        let other = RequestVerifier(dialect: .slack, secret: "another-secret")
        XCTAssertEqual(status(other, slackRequest(), now: exampleTime), 401, "another secret")
        XCTAssertEqual(status(verifier, request(body: slackBody, headers: [:]), now: exampleTime), 401, "unsigned")
        XCTAssertEqual(status(verifier, slackRequest(timestamp: "yesterday"), now: exampleTime), 400)
    }

    func testTheTimestampMustBeWithinFiveMinutes() {
        let verifier = RequestVerifier(dialect: .slack, secret: slackSecret)
        XCTAssertEqual(status(verifier, slackRequest(), now: exampleTime.addingTimeInterval(301)), 401, "stale")
        XCTAssertEqual(status(verifier, slackRequest(), now: exampleTime.addingTimeInterval(-301)), 401, "future")
        XCTAssertNil(status(verifier, slackRequest(), now: exampleTime.addingTimeInterval(300)), "at the edge")
    }

    func testASignatureSeenBeforeInsideTheWindowIsAReplay() {
        let verifier = RequestVerifier(dialect: .slack, secret: slackSecret)
        XCTAssertNil(status(verifier, slackRequest(), now: exampleTime))
        XCTAssertEqual(status(verifier, slackRequest(), now: exampleTime.addingTimeInterval(10)), 401)
        do {
            try verifier.verify(slackRequest(), form: [:], now: exampleTime.addingTimeInterval(20))
            XCTFail("a replay verified")
        } catch {
            XCTAssertTrue(error.message.contains("replayed"), error.message)
        }
        // A forged copy never reaches the replay cache, so it cannot make the real request look like a replay.
        let fresh = RequestVerifier(dialect: .slack, secret: slackSecret)
        XCTAssertEqual(
            status(fresh, slackRequest(signature: "v0=" + String(repeating: "0", count: 64)), now: exampleTime), 401)
        XCTAssertNil(status(fresh, slackRequest(), now: exampleTime))
    }

    func testTheReplayCacheForgetsSignaturesOnceTheyCouldNoLongerPass() {
        let cache = ReplayCache(window: 300)
        let start = Date(timeIntervalSince1970: 1_000_000)
        XCTAssertTrue(cache.claim([1], now: start))
        XCTAssertFalse(cache.claim([1], now: start.addingTimeInterval(599)))
        XCTAssertTrue(cache.claim([2], now: start.addingTimeInterval(1)))
        XCTAssertTrue(cache.claim([3], now: start.addingTimeInterval(601)), "1 and 2 are forgotten")
        XCTAssertEqual(cache.count, 1)
    }

    func testMattermostsTokenIsComparedAndRequired() {
        let verifier = RequestVerifier(dialect: .mattermost, secret: "mm-token-123")
        let plain = request(body: "", headers: [:])
        XCTAssertNoThrow(try verifier.verify(plain, form: ["token": "mm-token-123"]))
        XCTAssertNoThrow(
            try verifier.verify(request(body: "", headers: ["Authorization": "Token mm-token-123"]), form: [:]))
        for wrong in ["mm-token-12", "mm-token-1234", "MM-TOKEN-123", ""] {
            XCTAssertThrowsError(try verifier.verify(plain, form: ["token": wrong]), wrong)
        }
        XCTAssertThrowsError(try verifier.verify(plain, form: [:]))
    }

    func testTheSameSignatureInAnotherLetterCaseIsAReplay() {
        let verifier = RequestVerifier(dialect: .slack, secret: slackSecret)
        XCTAssertNil(failure(verifier, slackRequest()))
        let hex = slackSignature.dropFirst(3)
        var mixed = ""
        for (index, character) in hex.enumerated() { mixed += index % 2 == 0 ? character.uppercased() : "\(character)" }
        for variant in ["v0=" + hex.uppercased(), "v0=" + mixed] {
            XCTAssertNotEqual(variant, slackSignature)
            let refused = failure(verifier, slackRequest(signature: variant))
            XCTAssertEqual(refused?.kind, "replay", variant)
            XCTAssertEqual(refused?.status, 401, variant)
        }
    }

    func testOnlyOneSpellingOfEachVerificationHeaderIsAccepted() {
        let verifier = RequestVerifier(dialect: .slack, secret: slackSecret)
        // Each of these names the same second; only Slack's own spelling is read.
        for stamp in [
            "0" + slackTimestamp, "+" + slackTimestamp, " " + slackTimestamp, slackTimestamp + " ",
            slackTimestamp + ".0", "1.531420618e9", "0x5B47A3CA", slackTimestamp + "\t", "١٥٣١٤٢٠٦١٨",
        ] {
            let signed = RequestVerifier.slackSignature(
                secret: slackSecret, timestamp: stamp, body: Array(slackBody.utf8))
            let refused = failure(verifier, slackRequest(timestamp: stamp, signature: signed))
            XCTAssertEqual(refused?.status, 400, "timestamp '\(stamp)' was read")
        }
        let hex = slackSignature.dropFirst(3)
        for signature in [
            "V0=" + hex, " " + slackSignature, slackSignature + " ", slackSignature + "00",
            "v0=" + hex.dropLast(2), "v0=v0=" + hex, "v0 =" + hex,
        ] {
            XCTAssertEqual(failure(verifier, slackRequest(signature: signature))?.kind, "bad signature", signature)
        }
        let twice = request(
            body: slackBody,
            headers: ["X-Slack-Request-Timestamp": slackTimestamp, "X-Slack-Signature": slackSignature],
            repeated: ["x-slack-signature"])
        XCTAssertEqual(failure(verifier, twice)?.kind, "repeated header")
        XCTAssertNil(failure(verifier, slackRequest()), "the request itself still verifies afterwards")
    }

    func testMattermostsTwoPlacesForTheTokenMustAgree() {
        let verifier = RequestVerifier(dialect: .mattermost, secret: "mm-token-123")
        let both = request(body: "", headers: ["Authorization": "Token mm-token-123"])
        XCTAssertNil(failure(verifier, both, form: ["token": "mm-token-123"]))
        XCTAssertNil(failure(verifier, request(body: "", headers: ["Authorization": "token mm-token-123"])))
        XCTAssertEqual(failure(verifier, both, form: ["token": "other"])?.status, 401)
        let wrongHeader = request(body: "", headers: ["Authorization": "Token other"])
        XCTAssertEqual(failure(verifier, wrongHeader, form: ["token": "mm-token-123"])?.status, 401)
        XCTAssertEqual(
            failure(verifier, request(body: "", headers: ["Authorization": "Bearer mm-token-123"]))?.status, 401)
        let twice = request(body: "", headers: ["Authorization": "Token mm-token-123"], repeated: ["authorization"])
        XCTAssertEqual(failure(verifier, twice, form: ["token": "mm-token-123"])?.kind, "repeated header")
    }
}

import Foundation
import PipeBasics
import PipeForge
import XCTest

final class WebhookVerifierTests: XCTestCase {
    typealias Header = WebhookRequest.Header

    func vector(_ forge: ForgeKind) throws -> (secret: [UInt8], body: [UInt8]) {
        let secretFile = forge == .gitlab ? "secret-token.txt" : "secret.txt"
        return (
            try ForgeContractFiles.bytes("\(forge.rawValue)/webhooks/signature-vector/\(secretFile)"),
            try ForgeContractFiles.bytes("\(forge.rawValue)/webhooks/signature-vector/payload.json")
        )
    }

    func request(_ headers: [Header], _ body: [UInt8]) -> WebhookRequest {
        WebhookRequest(path: "/hooks/x", headers: [Header("Content-Type", "application/json")] + headers, body: body)
    }

    func refusal(_ verifier: WebhookVerifier, _ request: WebhookRequest) -> WebhookRefusal? {
        do {
            _ = try verifier.verify(request)
            return nil
        } catch {
            return error
        }
    }

    // MARK: GitHub

    func testGitHubsVectorVerifiesAndItsDigestIsTheBodys() throws {
        let (secret, body) = try vector(.github)
        let signature = try XCTUnwrap(ForgeContractFiles.expectedHeader(.github, "X-Hub-Signature-256"))
        let verified = try WebhookVerifier(kind: .github, secret: secret).verify(
            request([Header("X-Hub-Signature-256", signature)], body))
        XCTAssertEqual(verified.bodyDigest, "99c1656b2a959bedc162ec8881ececbd96b281059f43862dfde6a9939aa7decc")
        XCTAssertEqual(verified.request.body, body)
    }

    func testGitHubsDocumentedExampleVerifies() throws {
        let verifier = WebhookVerifier(kind: .github, secret: Array("It's a Secret to Everybody".utf8))
        let signature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        XCTAssertNoThrow(
            try verifier.verify(request([Header("x-hub-signature-256", signature)], Array("Hello, World!".utf8))))
        XCTAssertNoThrow(
            try verifier.verify(
                request(
                    [
                        Header(
                            "X-Hub-Signature-256",
                            signature.uppercased().replacingOccurrences(of: "SHA256=", with: "sha256="))
                    ], Array("Hello, World!".utf8))),
            "hex digits in either case")
    }

    func testGitHubRefusesForgedTamperedMissingRepeatedAndMalformedSignatures() throws {
        let (secret, body) = try vector(.github)
        let good = try XCTUnwrap(ForgeContractFiles.expectedHeader(.github, "X-Hub-Signature-256"))
        let verifier = WebhookVerifier(kind: .github, secret: secret)
        var tampered = body
        tampered[100] ^= 0x01
        let forged =
            "sha256=" + Hex.encode(HMACDigest.authenticationCode(.sha256, key: Array("guess".utf8), message: body))
        let cases: [(String, WebhookRequest, String)] = [
            (
                "one byte of the body changed", request([Header("X-Hub-Signature-256", good)], tampered),
                "does not match"
            ),
            ("signed with another secret", request([Header("X-Hub-Signature-256", forged)], body), "does not match"),
            ("no signature", request([], body), "no X-Hub-Signature-256 header"),
            (
                "only the SHA-1 one",
                request([Header("X-Hub-Signature", "sha1=fd70974f71df3998ccfb35445d10a5340fcef945")], body),
                "no X-Hub-Signature-256"
            ),
            (
                "sent twice",
                request([Header("X-Hub-Signature-256", good), Header("X-Hub-Signature-256", forged)], body),
                "sent 2 times"
            ),
            (
                "sent twice, both good",
                request([Header("X-Hub-Signature-256", good), Header("x-hub-signature-256", good)], body),
                "sent 2 times"
            ),
            ("bare hex", request([Header("X-Hub-Signature-256", String(good.dropFirst(7)))], body), "not sha256="),
            ("short", request([Header("X-Hub-Signature-256", String(good.dropLast()))], body), "not sha256="),
            (
                "not hex",
                request([Header("X-Hub-Signature-256", "sha256=" + String(repeating: "g", count: 64))], body),
                "not sha256="
            ),
            ("empty", request([Header("X-Hub-Signature-256", "sha256=")], body), "not sha256="),
            (
                "huge", request([Header("X-Hub-Signature-256", "sha256=" + String(repeating: "a", count: 5000))], body),
                "5007 bytes"
            ),
        ]
        for (what, request, expected) in cases {
            let refused = try XCTUnwrap(refusal(verifier, request), what)
            XCTAssertTrue(refused.message.contains(expected), "\(what): \(refused.message)")
            XCTAssertFalse(refused.message.contains(String(good.dropFirst(7))), "\(what): never says what was expected")
            XCTAssertEqual(refused.httpStatus, refused.kind == .unauthenticated ? 401 : 400, what)
        }
    }

    func testBodiesOverTheLimitAndBodiesThatAreNotJSONAreRefused() throws {
        let (secret, body) = try vector(.github)
        let good = try XCTUnwrap(ForgeContractFiles.expectedHeader(.github, "X-Hub-Signature-256"))
        let small = WebhookVerifier(kind: .github, secret: secret, maxBodyBytes: body.count - 1)
        let tooLarge = try XCTUnwrap(refusal(small, request([Header("X-Hub-Signature-256", good)], body)))
        XCTAssertEqual(tooLarge.httpStatus, 413)
        let verifier = WebhookVerifier(kind: .github, secret: secret)
        let form = WebhookRequest(
            path: "/hooks/github",
            headers: [
                Header("Content-Type", "application/x-www-form-urlencoded"), Header("X-Hub-Signature-256", good),
            ],
            body: body)
        XCTAssertTrue(try XCTUnwrap(refusal(verifier, form)).message.contains("application/json"))
    }

    func testAForgedDeliveryIsRefusedAsForgedWhateverItsBodyHolds() throws {
        let verifier = WebhookVerifier(kind: .github, secret: Array("s".utf8))
        let bomb = Array(String(repeating: "[", count: 1_000_000).utf8)
        let refused = try XCTUnwrap(
            refusal(
                verifier, request([Header("X-Hub-Signature-256", "sha256=" + String(repeating: "0", count: 64))], bomb))
        )
        XCTAssertEqual(refused.kind, .unauthenticated, "the body is not looked at before the signature matches")
    }

    // MARK: Gitea / Forgejo

    func testGiteaAndForgejoVectorsVerify() throws {
        let (secret, body) = try vector(.gitea)
        let verifier = WebhookVerifier(kind: .gitea, secret: secret)
        let gitea = try XCTUnwrap(ForgeContractFiles.expectedHeader(.gitea, "X-Gitea-Signature"))
        let forgejo = try XCTUnwrap(ForgeContractFiles.expectedHeader(.gitea, "X-Forgejo-Signature"))
        XCTAssertNoThrow(try verifier.verify(request([Header("X-Gitea-Signature", gitea)], body)))
        XCTAssertNoThrow(try verifier.verify(request([Header("X-Forgejo-Signature", forgejo)], body)))
        XCTAssertNoThrow(
            try verifier.verify(
                request([Header("X-Gitea-Signature", gitea), Header("X-Forgejo-Signature", forgejo)], body)))
        // GitHub's vector lists its HMAC in Gitea's form too.
        let (hubSecret, hubBody) = try vector(.github)
        let hubAsGitea = try XCTUnwrap(ForgeContractFiles.expectedHeader(.github, "X-Gitea-Signature"))
        XCTAssertNoThrow(
            try WebhookVerifier(kind: .gitea, secret: hubSecret).verify(
                request([Header("X-Gitea-Signature", hubAsGitea)], hubBody)))
    }

    func testGiteaRefusesEmptyForgedTamperedRepeatedAndMalformedSignatures() throws {
        let (secret, body) = try vector(.gitea)
        let good = try XCTUnwrap(ForgeContractFiles.expectedHeader(.gitea, "X-Gitea-Signature"))
        let verifier = WebhookVerifier(kind: .gitea, secret: secret)
        var tampered = body
        tampered[tampered.count - 3] ^= 0x20
        let other = String(good.reversed())
        let cases: [(String, WebhookRequest, String)] = [
            ("tampered", request([Header("X-Gitea-Signature", good)], tampered), "does not match"),
            (
                "unsigned hook",
                request([Header("X-Gitea-Signature", ""), Header("X-Hub-Signature-256", "sha256=")], body),
                "has no secret"
            ),
            ("no header", request([Header("X-Hub-Signature-256", "sha256=" + good)], body), "no X-Gitea-Signature"),
            (
                "one good, one forged",
                request([Header("X-Gitea-Signature", good), Header("X-Forgejo-Signature", other)], body),
                "X-Forgejo-Signature does not match"
            ),
            (
                "repeated", request([Header("X-Gitea-Signature", good), Header("X-Gitea-Signature", good)], body),
                "sent 2 times"
            ),
            ("GitHub's form", request([Header("X-Gitea-Signature", "sha256=" + good)], body), "not 64 hex digits"),
        ]
        for (what, request, expected) in cases {
            let refused = try XCTUnwrap(refusal(verifier, request), what)
            XCTAssertTrue(refused.message.contains(expected), "\(what): \(refused.message)")
        }
    }

    // MARK: GitLab

    func testGitLabsTokenIsComparedWhole() throws {
        let (token, body) = try vector(.gitlab)
        XCTAssertEqual(
            String(decoding: token, as: UTF8.self), try ForgeContractFiles.expectedHeader(.gitlab, "X-Gitlab-Token"))
        let verifier = WebhookVerifier(kind: .gitlab, secret: token)
        XCTAssertNoThrow(
            try verifier.verify(request([Header("X-Gitlab-Token", String(decoding: token, as: UTF8.self))], body)))
        let text = String(decoding: token, as: UTF8.self)
        for (what, headers, expected) in [
            ("missing", [Header]([]), "no X-Gitlab-Token"),
            ("a prefix", [Header("X-Gitlab-Token", String(text.dropLast()))], "is not this endpoint's secret token"),
            ("longer", [Header("X-Gitlab-Token", text + "x")], "is not this endpoint's secret token"),
            ("empty", [Header("X-Gitlab-Token", "")], "is not this endpoint's secret token"),
            ("repeated", [Header("X-Gitlab-Token", text), Header("X-Gitlab-Token", text)], "sent 2 times"),
        ] {
            let refused = try XCTUnwrap(refusal(verifier, request(headers, body)), what)
            XCTAssertTrue(refused.message.contains(expected), "\(what): \(refused.message)")
        }
    }

    func signedHeaders() throws -> [Header] {
        try ["webhook-id", "webhook-timestamp", "webhook-signature"].map {
            Header($0, try XCTUnwrap(ForgeContractFiles.expectedHeader(.gitlab, $0)))
        }
    }

    func signingVerifier(at seconds: Double, token: [UInt8]? = nil) throws -> WebhookVerifier {
        let signingToken = try ForgeContractFiles.text("gitlab/webhooks/signature-vector/signing-token.txt")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return WebhookVerifier(
            kind: .gitlab, secret: token, signingKey: try WebhookVerifier.signingKey(fromToken: signingToken),
            timestampToleranceSeconds: 300, now: { Date(timeIntervalSince1970: seconds) })
    }

    func testGitLabsSignedWebhookVectorVerifiesWithinTheTolerance() throws {
        let (token, body) = try vector(.gitlab)
        let headers = try signedHeaders()
        XCTAssertNoThrow(try signingVerifier(at: 1_744_578_123).verify(request(headers, body)))
        XCTAssertNoThrow(try signingVerifier(at: 1_744_578_123 + 299).verify(request(headers, body)))
        XCTAssertNoThrow(try signingVerifier(at: 1_744_578_123 - 299).verify(request(headers, body)))
        let both = try signingVerifier(at: 1_744_578_123, token: token)
        XCTAssertNoThrow(
            try both.verify(request(headers + [Header("X-Gitlab-Token", String(decoding: token, as: UTF8.self))], body))
        )
        XCTAssertNotNil(refusal(both, request(headers, body)), "with both configured, the token is required too")
        let several = headers.map { header in
            header.name == "webhook-signature" ? Header(header.name, "v2,abc v1,AAAA " + header.value) : header
        }
        XCTAssertNoThrow(try signingVerifier(at: 1_744_578_123).verify(request(several, body)), "any v1 may match")
    }

    func testGitLabRefusesOldFutureTamperedAndMalformedSignedWebhooks() throws {
        let (_, body) = try vector(.gitlab)
        let headers = try signedHeaders()
        func replacing(_ name: String, _ value: String?) -> [Header] {
            headers.compactMap { $0.name == name ? value.map { Header(name, $0) } : $0 }
        }
        var tampered = body
        tampered[10] ^= 0x01
        let now = 1_744_578_123.0
        let cases: [(String, Double, [Header], [UInt8], String)] = [
            ("replayed later", now + 301, headers, body, "old, beyond the 300s tolerance"),
            ("from the future", now - 301, headers, body, "ahead, beyond"),
            ("tampered body", now, headers, tampered, "does not match"),
            (
                "another id", now, replacing("webhook-id", "f5e5f430-f57b-4e6e-9fac-d9128cd7232e"), body,
                "does not match"
            ),
            ("timestamp moved", now, replacing("webhook-timestamp", "1744578124"), body, "does not match"),
            ("no signature", now, replacing("webhook-signature", nil), body, "are required"),
            (
                "no v1", now, replacing("webhook-signature", "v2,9pZ+rchAouqou+R2IS+VBRC38Joy8tgh1OQwdQblRXk="), body,
                "no v1"
            ),
            ("not base64", now, replacing("webhook-signature", "v1,!!!"), body, "does not match"),
            ("timestamp not a number", now, replacing("webhook-timestamp", "17445781e3"), body, "not a number"),
            ("id with a dot", now, replacing("webhook-id", "a.b"), body, "not a delivery id"),
            ("repeated signature", now, headers + [headers[2]], body, "sent 2 times"),
        ]
        for (what, clock, headers, body, expected) in cases {
            let refused = try XCTUnwrap(refusal(try signingVerifier(at: clock), request(headers, body)), what)
            XCTAssertTrue(refused.message.contains(expected), "\(what): \(refused.message)")
            XCTAssertEqual(refused.kind, what.hasPrefix("repeated") ? .malformed : .unauthenticated, what)
        }
        XCTAssertThrowsError(try WebhookVerifier.signingKey(fromToken: "whsec_***"))
    }
}

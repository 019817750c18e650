import Foundation
import PipeForge
import PipeTestSupport
import XCTest

/// The GitHub App's JWT, checked by `openssl` against the public key of a key made here, and its installation token.
final class GitHubAppTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func decode(_ part: Substring) throws -> Data {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return try XCTUnwrap(Data(base64Encoded: text))
    }

    func testTheJWTIsSignedRS256AndVerifiesWithOpenSSL() throws {
        let keys = try TestKeys.rsa2048()
        let jwt = try GitHubApp(appID: "424242", privateKeyPEM: keys.privatePEM).jwt(at: now)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        XCTAssertFalse(jwt.contains("="), "base64url without padding")
        let header = try JSONSerialization.jsonObject(with: decode(parts[0])) as? [String: Any]
        XCTAssertEqual(header?["alg"] as? String, "RS256")
        XCTAssertEqual(header?["typ"] as? String, "JWT")
        let claims = try XCTUnwrap(JSONSerialization.jsonObject(with: decode(parts[1])) as? [String: Any])
        let issuedAt = try XCTUnwrap(claims["iat"] as? Int)
        let expires = try XCTUnwrap(claims["exp"] as? Int)
        XCTAssertEqual(issuedAt, 1_800_000_000 - 60, "issued 60 s in the past")
        XCTAssertLessThanOrEqual(expires - 1_800_000_000, 600, "GitHub refuses an expiry over 10 minutes ahead")
        XCTAssertGreaterThan(expires, 1_800_000_000)
        XCTAssertEqual(claims["iss"] as? Int, 424_242)

        let input = keys.folder.appendingPathComponent("jwt-input-\(UUID().uuidString)")
        let signature = keys.folder.appendingPathComponent("jwt-signature-\(UUID().uuidString)")
        try Data((parts[0] + "." + parts[1]).utf8).write(to: input)
        try decode(parts[2]).write(to: signature)
        let verified = try TestKeys.openssl([
            "dgst", "-sha256", "-verify", keys.publicKey.path, "-signature", signature.path, input.path,
        ])
        XCTAssertEqual(verified.stdout, "Verified OK\n")
    }

    func testAClientIDIsTheIssuerAsAString() throws {
        let jwt = try GitHubApp(appID: "Iv23liAbCdEf", privateKeyPEM: TestKeys.rsa2048().privatePEM).jwt(at: now)
        let claims = try JSONSerialization.jsonObject(with: decode(jwt.split(separator: ".")[1])) as? [String: Any]
        XCTAssertEqual(claims?["iss"] as? String, "Iv23liAbCdEf")
    }

    func testABadKeyOrAppIDIsAClearError() throws {
        XCTAssertThrowsError(try GitHubApp(appID: "42", privateKeyPEM: "nope")) {
            XCTAssertTrue("\($0)".contains("the GitHub App's private key cannot be used"), "\($0)")
        }
        XCTAssertThrowsError(try GitHubApp(appID: "42\nX-Evil: 1", privateKeyPEM: TestKeys.rsa2048().privatePEM))
    }

    func testTheInstallationTokenExchange() throws {
        let app = try GitHubApp(appID: "42", privateKeyPEM: TestKeys.rsa2048().privatePEM)
        let request = try app.installationTokenRequest(installationID: 77, at: now)
        XCTAssertEqual(request.method, .post)
        XCTAssertEqual(request.path, "/app/installations/77/access_tokens")
        XCTAssertEqual(request.header("Authorization"), "Bearer " + (try app.jwt(at: now)))
        XCTAssertNil(request.body)
        let answer = ForgeResponse(
            status: 201, body: Array(#"{"token":"ghs_abc","expires_at":"2027-01-15T10:00:00Z","permissions":{}}"#.utf8))
        XCTAssertEqual(
            GitHubApp.installationToken(answer),
            InstallationToken(token: "ghs_abc", expiresAt: Date(timeIntervalSince1970: 1_800_000_000 + 3600 * 2)))
        XCTAssertNil(GitHubApp.installationToken(ForgeResponse(status: 401, body: Array(#"{"message":"Bad"}"#.utf8))))
        XCTAssertThrowsError(try app.installationTokenRequest(installationID: 0, at: now))
    }

    func testTheTokenCacheRenewsBeforeExpiry() throws {
        let clock = ForgeFixtures.ManualClock(now)
        let cache = InstallationTokenCache(clock: clock, renewal: 300)
        var fetches = 0
        let fetch = { () -> InstallationToken in
            fetches += 1
            return InstallationToken(token: "ghs_\(fetches)", expiresAt: clock.now().addingTimeInterval(3600))
        }
        XCTAssertEqual(try cache.token(installationID: 77, fetch: fetch), "ghs_1")
        clock.advance(3000)
        XCTAssertEqual(try cache.token(installationID: 77, fetch: fetch), "ghs_1", "still 10 minutes left")
        XCTAssertEqual(try cache.token(installationID: 78, fetch: fetch), "ghs_2", "one token per installation")
        clock.advance(301)
        XCTAssertEqual(try cache.token(installationID: 77, fetch: fetch), "ghs_3", "renewed within 5 minutes of expiry")
        cache.forget(installationID: 77)
        XCTAssertEqual(try cache.token(installationID: 77, fetch: fetch), "ghs_4")
        struct Refused: Error {}
        cache.forget(installationID: 77)
        XCTAssertThrowsError(try cache.token(installationID: 77) { throw Refused() })
        XCTAssertEqual(try cache.token(installationID: 77, fetch: fetch), "ghs_5", "a failed fetch caches nothing")
    }
}

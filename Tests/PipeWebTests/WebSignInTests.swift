import Foundation
import PipeTestSupport
import XCTest

@testable import PipeBasics
@testable import PipeWeb

final class WebSignInTests: XCTestCase {
    func testScryptHashesVerifyOnlyTheirPassword() throws {
        let hash = try PasswordHash.make("correct horse", logN: 10)
        XCTAssertTrue(hash.hasPrefix("scrypt$10$8$1$"), hash)
        XCTAssertTrue(PasswordHash.verify("correct horse", against: hash))
        XCTAssertFalse(PasswordHash.verify("correct horsE", against: hash))
        XCTAssertFalse(PasswordHash.verify("", against: hash))
        XCTAssertNotEqual(try PasswordHash.make("correct horse", logN: 10), hash, "each hash has its own salt")
        XCTAssertFalse(PasswordHash.verify("x", against: "scrypt$40$8$1$AA==$AA=="), "an absurd cost is refused")
        XCTAssertFalse(PasswordHash.verify("x", against: "plain"))
    }

    func testScryptMatchesTheRFC7914Vector() throws {
        // RFC 7914 §12: scrypt("password", "NaCl", N=1024, r=8, p=16), the first 32 of its 64 bytes.
        let hash = try PasswordHash.derive(Array("password".utf8), salt: Array("NaCl".utf8), logN: 10, r: 8, p: 16)
        XCTAssertEqual(Hex.encode(hash), "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162")
    }

    func testTheUsersFileKeepsOrderIsPrivateAndRefusesBadLines() throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("web-users")
        var users = try WebUsersFile.read(url)
        XCTAssertTrue(users.names.isEmpty)
        users.set("bob", hash: try PasswordHash.make("bob-password", logN: 10))
        users.set("alice", hash: try PasswordHash.make("alice-password", logN: 10))
        try users.write(url)
        let read = try WebUsersFile.read(url)
        XCTAssertEqual(read.names, ["bob", "alice"])
        XCTAssertTrue(read.verify("alice", password: "alice-password"))
        XCTAssertFalse(read.verify("alice", password: "bob-password"))
        XCTAssertFalse(read.verify("carol", password: "anything"))
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        try "alice:plaintext\n".write(to: url, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try WebUsersFile.read(url)) { error in
            XCTAssertTrue("\(error)".contains("web-users:1: expected `name:scrypt$…`"), "\(error)")
        }
        XCTAssertFalse(WebUsersFile.isValidName("a b"))
        XCTAssertFalse(WebUsersFile.isValidName("<script>"))
        XCTAssertTrue(WebUsersFile.isValidName("alice.smith@example.com"))
    }

    func testCSRFTokensBelongToTheirCookieAndSessionsExpire() {
        let sessions = WebSessions(lifetime: 60)
        let start = Date()
        let token = sessions.start(user: "alice", now: start)
        XCTAssertEqual(sessions.session(token, now: start.addingTimeInterval(30))?.user, "alice")
        XCTAssertNil(sessions.session(token, now: start.addingTimeInterval(61)))
        XCTAssertNil(sessions.session(token, now: start), "an expired session is gone")
        XCTAssertNil(sessions.session("forged"))

        let csrf = sessions.csrfToken(for: "cookie-a")
        XCTAssertTrue(sessions.checkCSRF(csrf, cookie: "cookie-a"))
        XCTAssertFalse(sessions.checkCSRF(csrf, cookie: "cookie-b"))
        XCTAssertFalse(sessions.checkCSRF(nil, cookie: "cookie-a"))
        XCTAssertFalse(sessions.checkCSRF(csrf, cookie: nil))
        XCTAssertFalse(
            WebSessions(lifetime: 60).checkCSRF(csrf, cookie: "cookie-a"), "another server's key makes other tokens")
    }

    func testCookiesAndTheAddressAfterSignIn() {
        XCTAssertEqual(
            WebRequest.cookies("pipe_session=abc; pipe_pre=def; pipe_session=second"),
            ["pipe_session": "abc", "pipe_pre": "def"])
        XCTAssertEqual(
            WebRequest.setCookie("pipe_session", "abc", path: "/pipe/", maxAge: 60, secure: true),
            "pipe_session=abc; Path=/pipe/; Max-Age=60; HttpOnly; SameSite=Lax; Secure")
        XCTAssertFalse(WebRequest.setCookie("a", "b", path: "/", maxAge: 1, secure: false).contains("Secure"))
        XCTAssertEqual(WebRequest.safeNext("/runs/1", base: "/"), "/runs/1")
        XCTAssertEqual(WebRequest.safeNext("//evil.example/", base: "/"), "/runs")
        XCTAssertEqual(WebRequest.safeNext("https://evil.example/", base: "/"), "/runs")
        XCTAssertEqual(WebRequest.safeNext("/other/", base: "/pipe/"), "/pipe/runs")
        XCTAssertEqual(WebRequest.safeNext("/\\evil", base: "/"), "/runs")
    }
}

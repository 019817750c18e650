import Foundation
import PipeTestSupport
import XCTest

@testable import PipeWeb

final class WebConfigLoaderTests: XCTestCase {
    private func load(_ text: String, listens: Bool = true) throws -> WebConfig {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("web.yml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return try WebConfigLoader.load(path: url)
    }

    func testAFullSectionIsRead() throws {
        let config = try load(
            """
            web:
              port: 8091
              path: /pipe/
              read: anyone
              users-file: web-users
              plain-http: true
              session-time: 2h
              sign-ins-per-minute: 3
              proxy:
                user-header: X-Forwarded-User
                secret-header: X-Pipe-Proxy-Secret
                secret: {env: PIPE_WEB_PROXY_SECRET}
              signoff:
                alice: [app-intents/shortcuts, "*/device"]
            """)
        XCTAssertEqual(config.path, "/pipe/")
        XCTAssertEqual(config.read, .anyone)
        XCTAssertEqual(config.sessionSeconds, 7200)
        XCTAssertEqual(config.signInsPerMinute, 3)
        XCTAssertTrue(config.plainHTTP)
        XCTAssertEqual(config.proxy?.secretHeader, "X-Pipe-Proxy-Secret")
        XCTAssertTrue(config.maySignoff(user: "alice", pipeline: "app-intents", layer: "shortcuts"))
        XCTAssertTrue(config.maySignoff(user: "alice", pipeline: "haptics", layer: "device"))
        XCTAssertFalse(config.maySignoff(user: "alice", pipeline: "app-intents", layer: "logic"))
        XCTAssertFalse(config.maySignoff(user: "bob", pipeline: "app-intents", layer: "shortcuts"))
    }

    func testEveryProblemIsReportedWithItsPosition() throws {
        XCTAssertThrowsError(
            try load(
                """
                web:
                  reed: anyone
                  read: everyone
                  path: pipe
                  proxy:
                    secret: hunter2
                """)
        ) { error in
            let text = "\(error)"
            for expected in [
                "web.yml:2:3", "did you mean 'read'?", "must be anyone or signed-in, found 'everyone'",
                "must start and end with /", "the secret itself is never written in this file",
                "give both secret-header",
            ] {
                XCTAssertTrue(text.contains(expected), "missing \(expected) in \(text)")
            }
            XCTAssertFalse(text.contains("hunter2"), "a secret is never repeated")
        }
        XCTAssertThrowsError(try load("web:\n  read: anyone\n")) { error in
            XCTAssertTrue("\(error)".contains("says no way to sign in"), "\(error)")
        }
    }
}

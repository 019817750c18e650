import Foundation
import PipeTestSupport
import XCTest

/// What the web page's end-to-end tests share: a real run of app-intents against the emulated Mac (shortcuts then
/// awaits sign-off), users alice (may sign shortcuts) and bob (may sign nothing), the page served on a free port,
/// and requests over real HTTP with curl and a cookie jar, as a browser keeps one.
class WebPageTestCase: EmulatedHostTestCase {
    var server: BackgroundPipe?
    var project: PipeProject!
    var base = ""
    var jar: URL!

    override func tearDown() {
        if let server {
            kill(server.pid, SIGTERM)
            server.wait(timeout: 30)
        }
        super.tearDown()
    }

    struct Answer {
        var status: Int
        var headers: String
        var body: String
    }

    /// Runs app-intents (shortcuts then awaits sign-off), adds alice (may sign shortcuts) and bob (may sign
    /// nothing), and serves the page on a free port: with `pipe web serve`, or from the `web:` section of the
    /// controller's config on its one listener.
    func start(read: String = "signed-in", underController: Bool = false) throws {
        project = try makeProject()
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(run.exitCode, 0, run.combined)
        try webSection(read: read).write(
            to: project.url.appendingPathComponent(".pipe/web.yml"), atomically: true, encoding: .utf8)
        for user in ["alice", "bob"] {
            let added = try CommandRunner.run(
                RepositoryPaths.pipeBinary, ["web", "users", "add", user, "--config", ".pipe/web.yml"],
                currentDirectory: project.url, stdin: Data("\(user)-password-1\n".utf8))
            XCTAssertEqual(added.exitCode, 0, added.combined)
            XCTAssertFalse(added.combined.contains("password-1"), "the password is never printed")
        }
        let users = try String(contentsOf: project.url.appendingPathComponent(".pipe/web-users"), encoding: .utf8)
        XCTAssertTrue(users.contains("alice:scrypt$15$8$1$"), users)
        let mode =
            try FileManager.default.attributesOfItem(
                atPath: project.url.appendingPathComponent(".pipe/web-users").path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)

        let server: BackgroundPipe
        if underController {
            let web = try String(contentsOf: project.url.appendingPathComponent(".pipe/web.yml"), encoding: .utf8)
            try (web + "\nhttp:\n  address: 127.0.0.1\n  port: 0\n").write(
                to: project.url.appendingPathComponent(".pipe/controller.yml"), atomically: true, encoding: .utf8)
            server = try BackgroundPipe(["controller", "--config", ".pipe/controller.yml"], in: project)
        } else {
            server = try BackgroundPipe(["web", "serve", "--config", ".pipe/web.yml", "--port", "0"], in: project)
        }
        self.server = server
        var port: String?
        waitUntil("the page listens", timeout: 20) {
            let text = server.chunks().map(\.text).joined()
            port = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression).map {
                String(text[$0].split(separator: ":")[1])
            }
            return port != nil
        }
        base = "http://127.0.0.1:\(port ?? "0")/"
        jar = project.url.appendingPathComponent(".pipe/cookies-\(UUID().uuidString)")
    }

    /// The `web:` section the tests serve: alice may sign shortcuts, bob nothing.
    func webSection(read: String, path: String = "/") -> String {
        """
        web:
          path: \(path)
          read: \(read)
          users-file: web-users
          plain-http: true
          signoff:
            alice: [app-intents/shortcuts]
            bob: []

        """
    }

    func request(_ path: String, form: [(String, String)]? = nil, jar: URL? = nil) throws -> Answer {
        let jar = jar ?? self.jar!
        var arguments = [
            "-s", "--path-as-is", "-D", "-", "-o", "-", "--max-time", "15", "-c", jar.path, "-b", jar.path,
        ]
        for (name, value) in form ?? [] { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        let result = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/curl"), arguments + [base + path])
        let parts = result.stdout.components(separatedBy: "\r\n\r\n")
        let headers = parts.first ?? ""
        let status = headers.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? -1
        return Answer(status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// The CSRF token in a page's forms.
    func csrf(_ html: String) -> String {
        guard let range = html.range(of: #"name="csrf" value="[0-9a-f]+""#, options: .regularExpression) else {
            return ""
        }
        return String(html[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }

    func signIn(_ user: String, password: String? = nil, jar: URL? = nil) throws -> Answer {
        let page = try request("sign-in", jar: jar)
        XCTAssertEqual(page.status, 200, page.body)
        return try request(
            "sign-in",
            form: [("csrf", csrf(page.body)), ("user", user), ("password", password ?? "\(user)-password-1")],
            jar: jar)
    }

    func lastRunID() throws -> String {
        try XCTUnwrap(project.runFolders().last?.lastPathComponent)
    }
}

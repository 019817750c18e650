import Foundation
import PipeHTTP
import PipeServer
import PipeSpec
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// The controller's one listener: its `http:` section, the older listener keys of `chatops:`, and endpoints
/// mounted on it over real HTTP.
final class ControllerHTTPSectionsTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory(prefix: "pipe-controller-http") }
    override func tearDown() { folder.remove() }

    private static let chatops = """
        chatops:
          path: /chatops/slash
          secret:
            env: PIPE_TEST_SECRET
          authorization:
            users:
              U1: {run: ["*"]}

        """

    private func load(_ text: String) throws(SpecErrors) -> ControllerHTTPSections {
        let url = folder.appending("controller.yml")
        try? text.write(to: url, atomically: true, encoding: .utf8)
        var loader = ControllerConfigLoader()
        let sections = ControllerHTTPSections()
        sections.register(on: &loader)
        _ = try sections.load(loader, url)
        return sections
    }

    private func problems(_ text: String) -> [String] {
        do {
            _ = try load(text)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    func testTheHTTPSectionIsTheListener() throws {
        let sections = try load(
            Self.chatops + """
                http:
                  address: "::1"
                  port: 9000
                  base-url: https://ci.example.com/pipe/
                  limits:
                    header-bytes: 4096
                    connections: 10
                    connections-per-peer: 2
                    head-time: 2s
                schedules: {}
                """)
        let config = sections.listenerConfig
        XCTAssertEqual(config.listener, .tcp(address: "::1", port: 9000))
        XCTAssertEqual(config.baseURL, "https://ci.example.com/pipe")
        XCTAssertEqual(config.runURL("20261202-1"), "https://ci.example.com/pipe/runs/20261202-1")
        XCTAssertEqual(config.limits.maxHeaderBytes, 4096)
        XCTAssertEqual(config.limits.maxConnections, 10)
        XCTAssertEqual(config.limits.maxConnectionsPerPeer, 2)
        XCTAssertEqual(config.limits.headSeconds, 2)
        XCTAssertEqual(sections.chatops?.path, "/chatops/slash")
        let socket = try load("http:\n  unix-socket: .pipe/http.sock\n")
        XCTAssertEqual(socket.listenerConfig.listener, .unixSocket(path: ".pipe/http.sock"))
    }

    func testTheExampleInTheDocsLoadsAsDocumented() throws {
        let text = try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent("docs/controller.md"), encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "```yaml\nhttp:\n"), "the http: example in docs/controller.md")
        let block = text[start.upperBound...]
        let end = try XCTUnwrap(block.range(of: "```"))
        let sections = try load("http:\n" + block[..<end.lowerBound])
        XCTAssertEqual(sections.listenerConfig.listener, .tcp(address: "127.0.0.1", port: 8088))
        XCTAssertEqual(sections.listenerConfig.runURL("1"), "https://ci.example.com/pipe/runs/1")
        XCTAssertEqual(sections.listenerConfig.limits.maxHeaderBytes, 8192)
    }

    func testChatOpsListenerKeysStillWorkWithoutAnHTTPSection() throws {
        let sections = try load(Self.chatops.replacingOccurrences(of: "  path:", with: "  port: 9100\n  path:"))
        XCTAssertEqual(sections.listenerConfig.listener, .tcp(address: "127.0.0.1", port: 9100))
        XCTAssertNil(sections.listenerConfig.baseURL)
    }

    func testChatOpsListenerKeysBesideAnHTTPSectionAreRefusedWhereTheyStand() {
        let found = problems(
            """
            chatops:
              address: 127.0.0.1
              port: 8088
              path: /chatops/slash
              secret:
                env: PIPE_TEST_SECRET
              limits:
                connections: 5
                body-bytes: 4096
              authorization:
                users:
                  U1: {run: ["*"]}
            http:
              port: 8080
            """)
        XCTAssertEqual(found.count, 3, "\(found)")
        XCTAssertTrue(found[0].contains("controller.yml:2:3"), found[0])
        XCTAssertTrue(found[0].contains("move this key into `http:` (http.address)"), found[0])
        XCTAssertTrue(found[1].contains(":3:3"), found[1])
        XCTAssertTrue(found[2].contains(":8:5") && found[2].contains("http.limits.connections"), found[2])
    }

    func testMistakesInTheHTTPSectionArePlaced() {
        let found = problems(
            """
            http:
              port: 70000
              unix-socket: /tmp/x.sock
              base-url: https://user:pw@ci.example.com/?a=1
              limts: {}
            """)
        XCTAssertEqual(found.count, 4, "\(found)")
        XCTAssertTrue(found.contains { $0.contains(":2:") && $0.contains("0 to 65535") }, "\(found)")
        XCTAssertTrue(found.contains { $0.contains(":3:") && $0.contains("either unix-socket or address") })
        XCTAssertTrue(found.contains { $0.contains(":4:") && $0.contains("no user, password, query") })
        XCTAssertTrue(found.contains { $0.contains(":5:") && $0.contains("limits") }, "\(found)")
        XCTAssertTrue(problems("http:\n  base-url: ci.example.com\n").first?.contains("public URL") == true)
    }

    func testEndpointsAreMountedOnOneListenerAndAConflictStopsItBeforeItListens() throws {
        let pages = NamedHandler(name: "pages")
        let hooks = NamedHandler(name: "hooks")
        let services = ControllerHTTPServices()
        defer { services.stop() }
        services.mount(HTTPEndpoint("pages", path: .prefix("/runs/"), methods: ["GET"], handler: pages))
        services.mount(HTTPEndpoint("hooks", path: .exact("/hooks/github"), methods: ["POST"], handler: hooks))
        let config = ControllerHTTPConfig(listener: .tcp(address: "127.0.0.1", port: 0))
        let line = try XCTUnwrap(try services.listen(config, project: ProjectFolder(url: folder.url)))
        XCTAssertTrue(line.contains("pages at /runs/…, hooks at /hooks/github"), line)
        let port = try XCTUnwrap(services.server?.port)
        let base = "http://127.0.0.1:\(port)"
        XCTAssertEqual(try HTTPClient().send(HTTPClientRequest("GET", base + "/runs/1")).bodyText, "pages\n")
        XCTAssertEqual(try HTTPClient().send(HTTPClientRequest("POST", base + "/hooks/github")).bodyText, "hooks\n")

        let conflicting = ControllerHTTPServices()
        conflicting.mount(HTTPEndpoint("hooks", path: .exact("/hooks/github"), methods: ["POST"], handler: hooks))
        conflicting.mount(HTTPEndpoint("other", path: .exact("/hooks/github"), methods: ["POST"], handler: pages))
        XCTAssertThrowsError(try conflicting.listen(config, project: ProjectFolder(url: folder.url))) {
            XCTAssertTrue("\($0)".contains("two endpoints are mounted on /hooks/github"), "\($0)")
        }
        XCTAssertNil(
            try ControllerHTTPServices().listen(config, project: ProjectFolder(url: folder.url)),
            "nothing mounted: no listener")
    }

    /// Answers with its name.
    final class NamedHandler: HTTPHandler, @unchecked Sendable {
        let name: String
        init(name: String) { self.name = name }
        func respond(to request: HTTPRequest) -> HTTPResponse { .text(200, name) }
        func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {}
    }
}

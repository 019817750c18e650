import Foundation
import PipeTestSupport
import XCTest

/// SIGHUP to a real `pipe web serve` and to a real controller: the config is applied in place (a real request sees
/// it), sessions survive, a file that no longer loads keeps the old config, and a new path asks for a restart.
final class WebReloadTests: WebPageTestCase {
    private var configFile: URL { project.url.appendingPathComponent(".pipe/web.yml") }

    /// Writes `text` to `file` and sends SIGHUP; waits until the server has said `message` `count` times.
    private func reload(_ text: String, in file: URL, expecting message: String, count: Int = 1) throws {
        try text.write(to: file, atomically: true, encoding: .utf8)
        let server = try XCTUnwrap(server)
        XCTAssertEqual(kill(server.pid, SIGHUP), 0)
        waitUntil("the server says \(message)", timeout: 20, context: server.stderrSoFar()) {
            server.stderrSoFar().components(separatedBy: message).count - 1 >= count
        }
    }

    func testSIGHUPAppliesTheConfigInPlaceKeepsSessionsAndKeepsTheOldConfigWhenTheFileIsBad() throws {
        try start()
        XCTAssertEqual(try signIn("alice").status, 303)
        let runID = try lastRunID()
        let stranger = project.url.appendingPathComponent(".pipe/cookies-stranger")
        XCTAssertEqual(try request("runs", jar: stranger).status, 303, "reading needs a signed-in user at first")

        try reload(webSection(read: "anyone"), in: configFile, expecting: "web: reloaded")
        let open = try request("runs", jar: stranger)
        XCTAssertEqual(open.status, 200, "the new config is in force: anyone may read")
        XCTAssertTrue(open.body.contains(">\(runID)</a>"), open.body)
        let signedIn = try request("runs")
        XCTAssertTrue(signedIn.body.contains("<span>alice</span>"), "alice's session survived the reload")
        let checklist = try request("runs/\(runID)/layers/shortcuts")
        XCTAssertTrue(checklist.body.contains("name=\"csrf\""), "alice may still sign off: \(checklist.body)")

        try reload(
            webSection(read: "everyone"), in: configFile, expecting: "is invalid now; keeping the config loaded before")
        XCTAssertTrue(server?.stderrSoFar().contains(".pipe/web.yml:3:") == true, server?.stderrSoFar() ?? "")
        XCTAssertEqual(try request("runs", jar: stranger).status, 200, "the bad file left the page as it was")

        try reload(
            webSection(read: "signed-in", path: "/pipe/"), in: configFile, expecting: "web: needs a restart: path",
            count: 1)
        XCTAssertEqual(try request("runs", jar: stranger).status, 303, "the rest of the file applied in place")
        XCTAssertEqual(try request("runs").status, 200, "at the old path, alice still signed in")
    }

    func testTheControllerTakesAReloadedWebSectionInPlace() throws {
        try start(underController: true)
        XCTAssertEqual(try signIn("alice").status, 303)
        let stranger = project.url.appendingPathComponent(".pipe/cookies-stranger")
        XCTAssertEqual(try request("runs", jar: stranger).status, 303)
        try reload(
            webSection(read: "anyone") + "http:\n  address: 127.0.0.1\n  port: 0\n",
            in: project.url.appendingPathComponent(".pipe/controller.yml"), expecting: "web: reloaded")
        XCTAssertEqual(try request("runs", jar: stranger).status, 200, "anyone may read now")
        XCTAssertTrue(try request("runs").body.contains("<span>alice</span>"), "alice's session survived")
    }
}

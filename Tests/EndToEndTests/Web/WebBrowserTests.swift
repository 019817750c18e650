import Foundation
import PipeTestSupport
import XCTest

/// The web page in a real headless Chromium over WebDriver, with the data of real runs against the emulated Mac:
/// what a tester and an engineer see, typed with the keyboard alone. The logic under it is tested without a browser
/// (PipeWebTests, WebPageTests). Screenshots are kept in `.build/test-artifacts/web/`.
final class WebBrowserTests: WebPageTestCase {
    private var driver: WebDriver!
    private var browser: BrowserSession!

    override func setUpWithError() throws {
        if let missing = WebDriver.missing {
            // Never skipped: a machine without the browser has not run `make deps`.
            XCTFail(missing)
            throw WebDriver.Failure(missing)
        }
        try super.setUpWithError()
        driver = try WebDriver()
        browser = try driver.session()
    }

    override func tearDown() {
        browser?.close()
        driver?.stop()
        super.tearDown()
    }

    /// Signs in through the page's form with the keyboard: Tab to each field, type, Enter.
    private func signIn(as user: String) throws {
        try browser.open(base + "sign-in")
        try browser.tab(to: "user")
        try browser.press([user])
        try browser.tab(to: "password")
        try browser.press(["\(user)-password-1", BrowserSession.Key.enter])
        try browser.waitUntil("\(user) is signed in") { try browser.text("header form span") == user }
    }

    private func keepScreenshot(_ name: String) throws {
        let folder = RepositoryPaths.root.appendingPathComponent(".build/test-artifacts/web")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name + ".png")
        try browser.screenshot().write(to: url)
        print("screenshot: \(url.path)")
    }

    private func releaseGateExit() throws -> Int32 {
        try project.pipe(["gate", "last", "--for", "release"]).exitCode
    }

    func testTheRunsListAndARunPageShowTheRealRunAndNoPageOverflowsAPhone() throws {
        try start()
        let runID = try lastRunID()
        try signIn(as: "alice")
        try browser.open(base + "runs")
        try browser.waitUntil("the runs list shows the run") {
            try browser.text("#live-runs")?.contains(runID) == true
        }
        XCTAssertTrue(try browser.text("#live-runs")?.contains("pending-signoff") == true)
        try keepScreenshot("runs")
        try browser.open(base + "runs/\(runID)")
        let page = try XCTUnwrap(try browser.text("main"))
        for expected in ["app-intents", "shortcuts (checklist)", "awaiting-signoff", "Gates", "Artifacts"] {
            XCTAssertTrue(page.contains(expected), "the run page lacks \(expected):\n\(page)")
        }
        try keepScreenshot("run")

        try browser.resize(width: 375, height: 812)
        let width = try XCTUnwrap(try browser.script("return window.innerWidth;") as? Int)
        XCTAssertLessThanOrEqual(width, 375)
        for path in [
            "runs", "runs/\(runID)", "runs/\(runID)/layers/shortcuts", "runs/\(runID)/log", "flaky", "hosts",
            "tests?id=ReaderTests.ReadingIDTests/testAcceptsTwelveDigits", "sign-in",
        ] {
            try browser.open(base + path)
            let overflow =
                try browser.script(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth;") as? Int
            XCTAssertEqual(overflow, 0, "/\(path) overflows a 375 px screen by \(overflow ?? -1) px")
        }
        try browser.open(base + "runs/\(runID)")
        try keepScreenshot("run-375px")
    }

    func testAFailingTestsScreenshotShowsInline() throws {
        try start()
        try failWithScreenshot(in: project, png: TestPNG.gradient(width: 270, height: 480))
        let failing = try project.pipe(["run", "app-intents", "--only", "logic"])
        XCTAssertEqual(failing.exitCode, 1, failing.combined)
        let runID = try lastRunID()
        try signIn(as: "alice")
        try browser.resize(width: 375, height: 812)
        try browser.open(base + "runs/\(runID)")
        let loaded = "var i = document.querySelector('img.shot'); return !!i && i.complete && i.naturalWidth > 0;"
        try browser.waitUntil("the screenshot has loaded") { try browser.script(loaded) as? Bool == true }
        let size = try XCTUnwrap(
            try browser.script(
                "var i = document.querySelector('img.shot'); "
                    + "return [i.naturalWidth, i.naturalHeight, i.clientWidth, i.clientHeight];") as? [Int])
        XCTAssertEqual(Array(size.prefix(2)), [270, 480], "the PNG the test attached, decoded by the browser")
        XCTAssertEqual(size[2], 270, "shown at its own width: it fits in 20rem and the screen")
        XCTAssertEqual(size[3], 480, "its height follows its width")
        XCTAssertTrue(
            try browser.text("main")?.contains("ReadingIDTests/testRejectsEmptyInput") == true, "the failing test")
        let overflow =
            try browser.script("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
            as? Int
        let wide = try browser.script(
            "var w = document.documentElement.clientWidth; return Array.from(document.querySelectorAll('main *'))"
                + ".filter(function (e) { return e.getBoundingClientRect().right > w; })"
                + ".map(function (e) { return e.tagName + '.' + e.className + ' in ' + e.parentNode.tagName + ': ' + e.textContent; }).join(' | ');"
        )
        XCTAssertEqual(overflow, 0, "the run page overflows a 375 px screen by \(overflow ?? -1) px: \(wide ?? "")")
        try browser.script("document.querySelector('h2 + h3').scrollIntoView();")
        try keepScreenshot("run-failing-375px")
    }

    func testATesterSignsOffTheChecklistWithTheKeyboardAloneAndTheReleaseGateTurns() throws {
        try start()
        let runID = try lastRunID()
        try signIn(as: "alice")
        try browser.open(base + "runs/\(runID)/layers/shortcuts")
        XCTAssertEqual(try releaseGateExit(), 4, "the release gate awaits the sign-off")

        // A field left out: refused, with what is missing, and nothing recorded.
        try browser.tab(to: "result-pass")
        try browser.press([BrowserSession.Key.space])
        try browser.tab(to: "field.os_version")
        try browser.press(["17.5", BrowserSession.Key.enter])
        try browser.waitUntil("the sign-off is refused") { try browser.text("#refusal") != nil }
        XCTAssertTrue(try browser.text("#refusal")?.contains("missing app_build") == true)
        XCTAssertEqual(try releaseGateExit(), 4, "a refused sign-off records nothing")
        XCTAssertTrue(try browser.text("main")?.contains("No sign-offs yet.") == true)

        // What was typed is kept; the missing field given, Enter signs off.
        try browser.tab(to: "field.app_build")
        try browser.press(["1.0 (42)", BrowserSession.Key.enter])
        try browser.waitUntil("the sign-off is recorded") {
            try browser.text(".notice")?.contains("Sign-off #") == true
        }
        XCTAssertEqual(try releaseGateExit(), 0, "the release gate turned")
        XCTAssertTrue(try browser.text("main")?.contains("signed-off") == true)
        try keepScreenshot("checklist-signed")
        try browser.open(base + "runs")
        XCTAssertTrue(try browser.text("#live-runs")?.contains("passed") == true)
    }

    func testAFormWithoutItsTokenAndAUserWithoutTheRightAreRefused() throws {
        try start()
        let runID = try lastRunID()
        try signIn(as: "bob")
        try browser.open(base + "runs/\(runID)/layers/shortcuts")
        XCTAssertTrue(
            try browser.text("main")?.contains("bob may not sign off app-intents/shortcuts") == true,
            "bob is told why")
        XCTAssertNil(try browser.text("#sign"), "bob gets no form")

        try browser.deleteCookies()
        try signIn(as: "alice")
        try browser.open(base + "runs/\(runID)/layers/shortcuts")
        // The form as another site would send it: everything but the token.
        try browser.script("document.querySelector('form[action$=\"/signoff\"] input[name=csrf]').remove();")
        try browser.tab(to: "result-pass")
        try browser.press([BrowserSession.Key.space])
        try browser.tab(to: "field.os_version")
        try browser.press(["17.5"])
        try browser.tab(to: "field.app_build")
        try browser.press(["42", BrowserSession.Key.enter])
        try browser.waitUntil("the form is refused") { try browser.text("h1") == "Refused" }
        XCTAssertTrue(try browser.text("main")?.contains("CSRF") == true)
        XCTAssertEqual(try releaseGateExit(), 4, "nothing was recorded")
    }

    func testANewRunAppearsInTheOpenListAndItsLiveLogGrows() throws {
        try start()
        let earlier = project.runFolders()
        try makeFirstTest(of: "ReadingIDTests", take: 5, in: project)
        try signIn(as: "alice")
        try browser.open(base + "runs")
        let rowsBefore = try XCTUnwrap(
            try browser.script("return document.querySelectorAll('#live-runs tr').length;") as? Int)
        let run = try BackgroundPipe(["run", "app-intents"], in: project)
        defer { run.wait(timeout: 60) }
        try browser.waitUntil("the new run appears without a reload", timeout: 30) {
            try browser.script("return document.querySelectorAll('#live-runs tr').length;") as? Int == rowsBefore + 1
        }
        let folder = try XCTUnwrap(project.runFolders().first { !earlier.contains($0) })
        try browser.open(base + "runs/\(folder.lastPathComponent)/log")
        let first = try XCTUnwrap(try browser.text("#live-log"), "a running run's log is live").count
        try browser.waitUntil("the log grows while the layer runs", timeout: 30) {
            try (browser.text("#live-log")?.count ?? 0) > first
        }
        try browser.waitUntil("the log says the run ended", timeout: 60) {
            try browser.text("#log-state") != "running"
        }
        XCTAssertTrue(try browser.text("#live-log")?.contains("Test Suite") == true)
    }
}

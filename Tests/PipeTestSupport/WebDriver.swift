import Foundation
import PipeHTTP

/// A headless Chromium driven over W3C WebDriver by Debian's `chromedriver`, for the web page's browser tests:
/// only the commands those tests use, over the project's own HTTP client.
public final class WebDriver {
    public static let chromium = "/usr/bin/chromium"
    public static let chromedriver = "/usr/bin/chromedriver"

    /// Why the browser tests cannot run here, when they cannot.
    public static var missing: String? {
        let absent = [chromium, chromedriver].filter { !FileManager.default.isExecutableFile(atPath: $0) }
        guard !absent.isEmpty else { return nil }
        return "\(absent.joined(separator: " and ")) missing: run `make deps` (it installs chromium and "
            + "chromium-driver) and test again"
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    private let process = Process()
    private let output = Pipe()
    let base: String
    let client = HTTPClient(userAgent: "pipe-tests")

    /// Starts `chromedriver` on a free loopback port and waits until it says which.
    public init() throws {
        if let missing = Self.missing { throw Failure(missing) }
        process.executableURL = URL(fileURLWithPath: Self.chromedriver)
        process.arguments = ["--port=0"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var text = ""
        let handle = output.fileHandleForReading
        while !text.contains("started successfully on port") || !text.hasSuffix("\n") {
            let data = handle.availableData
            guard !data.isEmpty else { throw Failure("chromedriver ended before it listened: \(text)") }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: #"successfully on port \d+"#, options: .regularExpression) else {
            throw Failure("chromedriver did not say its port: \(text)")
        }
        base = "http://127.0.0.1:\(text[range].dropFirst("successfully on port ".count))"
    }

    deinit { stop() }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// A new headless browser window of `width` × `height` CSS pixels.
    public func session(width: Int = 1280, height: Int = 900) throws -> BrowserSession {
        let arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--window-size=\(width),\(height)",
        ]
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": ["binary": Self.chromium, "args": arguments],
                ]
            ]
        ]
        let value = try call("POST", "/session", capabilities)
        guard let id = (value as? [String: Any])?["sessionId"] as? String else {
            throw Failure("no session id in \(String(describing: value))")
        }
        return BrowserSession(driver: self, id: id)
    }

    /// One WebDriver command; its `value`, or its error as a `Failure`.
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let request = HTTPClientRequest(
            method, base + path, headers: data == nil ? [] : [("Content-Type", "application/json")],
            body: data.map { Array($0) } ?? [], maxResponseBytes: 32 * 1024 * 1024, totalSeconds: 60)
        let response = try client.send(request)
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let value = json?["value"] ?? nil
        guard response.isSuccess else {
            let error = value as? [String: Any]
            throw Failure(
                "\(method) \(path): \(response.status) \(error?["error"] ?? ""): \(error?["message"] ?? response.bodyText)"
            )
        }
        return value
    }
}

/// One browser window of a `WebDriver`.
public final class BrowserSession {
    let driver: WebDriver
    public let id: String

    /// Key codes of the WebDriver actions.
    public enum Key {
        public static let tab = "\u{E004}"
        public static let enter = "\u{E007}"
        public static let space = "\u{E00D}"
    }

    init(driver: WebDriver, id: String) {
        self.driver = driver
        self.id = id
    }

    deinit { close() }

    private var closed = false

    public func close() {
        guard !closed else { return }
        closed = true
        _ = try? driver.call("DELETE", "/session/\(id)")
    }

    /// Any WebDriver command of this session (`path` after `/session/<id>`).
    @discardableResult
    public func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        try driver.call(method, "/session/\(id)" + path, body)
    }

    /// Opens `url` and returns once the page has loaded.
    public func open(_ url: String) throws { try call("POST", "/url", ["url": url]) }

    public var url: String { get throws { try call("GET", "/url") as? String ?? "" } }

    /// The page's markup as the browser holds it now.
    public var source: String { get throws { try call("GET", "/source") as? String ?? "" } }

    /// The visible text of the first element `css` selects; `nil` when none does.
    public func text(_ css: String) throws -> String? {
        let value = try script(
            "var e = document.querySelector(arguments[0]); return e ? e.innerText : null;", [css])
        return value as? String
    }

    /// Runs `source` as a function body in the page: for reading what the page shows (what a person does goes
    /// through `press`).
    @discardableResult
    public func script(_ source: String, _ arguments: [Any] = []) throws -> Any? {
        try call("POST", "/execute/sync", ["script": source, "args": arguments])
    }

    /// Presses the keys one after another, as a person at the keyboard would; characters are typed as they are.
    public func press(_ keys: [String]) throws {
        var actions: [[String: Any]] = []
        for key in keys {
            for character in key {
                actions.append(["type": "keyDown", "value": String(character)])
                actions.append(["type": "keyUp", "value": String(character)])
            }
        }
        try call("POST", "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
    }

    /// Presses Tab until the focused element's `id` is `id` (at most `limit` times).
    public func tab(to id: String, limit: Int = 60) throws {
        for _ in 0..<limit {
            try press([Key.tab])
            if try script("return document.activeElement ? document.activeElement.id : '';") as? String == id {
                return
            }
        }
        throw WebDriver.Failure("\(limit) presses of Tab never reached #\(id)")
    }

    /// Forgets every cookie, as a browser of someone else would start.
    public func deleteCookies() throws { try call("DELETE", "/cookie") }

    /// Sets the window's size in CSS pixels.
    public func resize(width: Int, height: Int) throws {
        try call("POST", "/window/rect", ["width": width, "height": height])
    }

    /// A PNG of the window.
    public func screenshot() throws -> Data {
        guard let text = try call("GET", "/screenshot") as? String, let data = Data(base64Encoded: text) else {
            throw WebDriver.Failure("the screenshot was not base64")
        }
        return data
    }

    /// Asks the page every 50 ms until `condition` holds; fails after `timeout` seconds with `what`.
    public func waitUntil(_ what: String, timeout: Double = 15, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw WebDriver.Failure("timed out after \(timeout) s waiting until \(what) (at \(try url))")
    }
}

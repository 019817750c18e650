import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One answer to a real HTTP request, as tests read it.
public struct LoopbackHTTPResponse: Sendable {
    public var status: Int
    /// Header names as the server spelled them; `header(_:)` looks one up without regard to case.
    public var headers: [String: String]
    public var body: Data

    public var text: String { String(decoding: body, as: UTF8.self) }

    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body read as a JSON object (nil when it is not one).
    public var jsonObject: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }

    /// The body read as a JSON array of objects (nil when it is not one).
    public var jsonArray: [[String: Any]]? { try? JSONSerialization.jsonObject(with: body) as? [[String: Any]] }
}

public enum LoopbackHTTPError: Error, CustomStringConvertible {
    case failed(String, URL, String)

    public var description: String {
        switch self {
        case .failed(let method, let url, let reason): return "\(method) \(url.absoluteString) failed: \(reason)"
        }
    }
}

/// Real HTTP requests over loopback with Foundation, waited for synchronously (test code only).
public enum LoopbackHTTP {
    public static func send(
        _ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil,
        timeout: TimeInterval = 30
    ) throws -> LoopbackHTTPResponse {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        return try send(request)
    }

    /// A request built by the test (a streamed body, say).
    public static func send(_ request: URLRequest) throws -> LoopbackHTTPResponse {
        let method = request.httpMethod ?? "GET"
        let url = request.url!
        let timeout = request.timeoutInterval
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        session.dataTask(with: request) { data, response, error in
            outcome.set(data: data, response: response as? HTTPURLResponse, error: error)
            done.signal()
        }.resume()
        done.wait()
        session.finishTasksAndInvalidate()
        let (data, response, error) = outcome.get()
        guard let response else {
            throw LoopbackHTTPError.failed(method, url, error.map { "\($0)" } ?? "no response")
        }
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return LoopbackHTTPResponse(status: response.statusCode, headers: fields, body: data ?? Data())
    }

    /// A JSON body sent with `Content-Type: application/json`.
    public static func sendJSON(
        _ method: String, _ url: URL, _ object: Any, headers: [String: String] = [:], timeout: TimeInterval = 30
    ) throws -> LoopbackHTTPResponse {
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        var headers = headers
        headers["Content-Type"] = "application/json"
        return try send(method, url, headers: headers, body: body, timeout: timeout)
    }
}

/// What a data task handed back, passed from URLSession's queue to the waiting test thread.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    private var response: HTTPURLResponse?
    private var error: Error?

    func set(data: Data?, response: HTTPURLResponse?, error: Error?) {
        lock.lock()
        (self.data, self.response, self.error) = (data, response, error)
        lock.unlock()
    }

    func get() -> (Data?, HTTPURLResponse?, Error?) {
        lock.lock()
        defer { lock.unlock() }
        return (data, response, error)
    }
}

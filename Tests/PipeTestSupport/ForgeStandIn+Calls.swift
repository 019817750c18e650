import Foundation

extension ForgeStandIn {
    /// How a test's own request to a forge API authenticates.
    public enum Credential: Sendable {
        /// The forge's default token (`defaultTokens`) in the header that forge reads, and a User-Agent.
        case standard
        /// No credential at all (a User-Agent still).
        case none
        /// Exactly these headers.
        case headers([String: String])
    }

    /// A request to one forge's API on the stand-in, for tests of the stand-in itself and of what it answers.
    public func call(
        _ forge: Forge, _ method: String, _ path: String, json: Any? = nil, credential: Credential = .standard,
        timeout: TimeInterval = 30
    ) throws -> LoopbackHTTPResponse {
        let url = URL(string: apiBase(forge).absoluteString + path)!
        var headers: [String: String] = ["User-Agent": "pipe-test", "Accept": "application/json"]
        switch credential {
        case .standard:
            let token = ForgeStandIn.defaultTokens.first { $0.forge == forge }!.token
            if forge == .gitlab {
                headers["PRIVATE-TOKEN"] = token
            } else {
                headers["Authorization"] = "token \(token)"
            }
        case .none: break
        case .headers(let given): headers = given
        }
        if let json { return try LoopbackHTTP.sendJSON(method, url, json, headers: headers, timeout: timeout) }
        return try LoopbackHTTP.send(method, url, headers: headers, timeout: timeout)
    }
}

import Foundation

/// Which endpoint a request is for, decided from its head alone: the path (an exact path before the longest
/// prefix), then the method, the media type and the declared length. Pure, so that every refusal is decided before
/// a byte of the body is read.
struct HTTPRouter {
    /// Where a request goes.
    enum Decision {
        case endpoint(HTTPEndpoint)
        /// Answered at once; `endpoint` is the one it was for, `nil` when none is mounted at the path.
        case refused(HTTPResponse, reason: String, endpoint: HTTPEndpoint?)
    }

    let endpoints: [HTTPEndpoint]

    /// Checks the mounts: paths start with `/`, a prefix ends with `/`, and no two endpoints share a path.
    init(_ endpoints: [HTTPEndpoint]) throws(HTTPServerError) {
        var seen: [String: HTTPEndpoint] = [:]
        for endpoint in endpoints {
            let path = endpoint.path.text
            guard path.hasPrefix("/"), !path.utf8.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "?") }) else {
                throw HTTPServerError(
                    "\(endpoint.name): the path '\(path)' must start with / and hold no spaces, control characters "
                        + "or ?")
            }
            if case .prefix = endpoint.path, !path.hasSuffix("/") {
                throw HTTPServerError(
                    "\(endpoint.name): the prefix '\(path)' must end with / (so that '\(path)x' is not mounted by "
                        + "accident); give '\(path)/'")
            }
            guard !endpoint.methods.isEmpty else {
                throw HTTPServerError("\(endpoint.name): no methods are given for \(endpoint.path)")
            }
            // An exact path and a prefix of the same text would both claim it.
            if let other = seen[path] {
                throw HTTPServerError(
                    "two endpoints are mounted on \(path): \(other.name) and \(endpoint.name); give one of them "
                        + "another path")
            }
            seen[path] = endpoint
        }
        self.endpoints = endpoints
    }

    func endpoint(for path: String) -> HTTPEndpoint? {
        if let exact = endpoints.first(where: { $0.path == .exact(path) }) { return exact }
        return endpoints.filter { $0.path.matches(path) }.max { $0.path.text.count < $1.path.text.count }
    }

    func route(_ head: HTTPRequestHead) -> Decision {
        let echoed = HTTPText.quoted
        if head.path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }
        ) {
            return .refused(
                .text(400, "the path has '.' or '..' segments; send the path itself"),
                reason: "the path \(echoed(head.path)) has dot segments", endpoint: nil)
        }
        guard let endpoint = endpoint(for: head.path) else {
            return .refused(
                .text(404, "nothing is served at this path"), reason: "no endpoint at \(echoed(head.path))",
                endpoint: nil)
        }
        guard endpoint.methods.contains(head.method) else {
            let allowed = endpoint.methods.joined(separator: ", ")
            var response = HTTPResponse.text(405, "this path takes \(allowed), not \(echoed(head.method))")
            try? response.headers.set("Allow", allowed)
            return .refused(
                response, reason: "\(endpoint.name) takes \(allowed), not \(echoed(head.method))", endpoint: endpoint)
        }
        if let accepted = endpoint.mediaTypes, !accepted.contains(head.mediaType ?? "") {
            let given = head.mediaType.map(echoed) ?? "nothing"
            return .refused(
                .text(415, "this path takes \(accepted.joined(separator: " or ")), not \(given)"),
                reason: "\(endpoint.name) takes \(accepted.joined(separator: " or ")), not \(given)",
                endpoint: endpoint)
        }
        let limit = endpoint.limits.maxBodyBytes
        if let length = head.header("content-length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            length > limit
        {
            return .refused(
                .text(413, "the body is larger than \(limit) bytes"),
                reason: "body of \(length) bytes is over the limit of \(limit)", endpoint: endpoint)
        }
        return .endpoint(endpoint)
    }
}

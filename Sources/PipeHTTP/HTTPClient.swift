import CCurl
import Foundation

/// Outgoing HTTP with libcurl: any method, headers and body; the answer's status, headers and body, each bounded;
/// connect and total times; no redirects (a 3xx is the answer); HTTP and HTTPS only, with the server's certificate
/// and name always verified.
///
/// Thread rule: each call makes its own easy handle, used only on the calling thread.
public struct HTTPClient: Sendable {
    /// Certificates to trust instead of the system's (a self-hosted forge's own CA), in PEM.
    public var caFile: String?
    public var userAgent: String

    public init(caFile: String? = nil, userAgent: String = "Pipe") {
        self.caFile = caFile
        self.userAgent = userAgent
    }

    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    /// Sends `request` and waits for its answer, at most `request.totalSeconds`.
    public func send(_ request: HTTPClientRequest) throws(HTTPClientError) -> HTTPClientResponse {
        try validate(request)
        guard Self.initialized, let handle = curl_easy_init() else {
            throw HTTPClientError(.transfer, "\(request): libcurl could not be initialised")
        }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Expect:")
        for field in request.headers { list = curl_slist_append(list, "\(field.name): \(field.value)") }
        defer { curl_slist_free_all(list) }
        let collector = ResponseCollector(
            maxBody: request.maxResponseBytes, maxHeaders: request.maxHeaderBytes)
        let context = Unmanaged.passUnretained(collector).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // An empty body still needs a pointer libcurl can read from.
        let body = request.body.isEmpty ? [0] : request.body
        let result: CURLcode = body.withUnsafeBufferPointer { bytes in
            errorBuffer.withUnsafeMutableBufferPointer { errors in
                configure(handle, request, headers: list)
                if request.method == "HEAD" {
                    _ = pipe_curl_set_long(handle, CURLOPT_NOBODY, 1)
                } else if request.method == "GET" && request.body.isEmpty {
                    _ = pipe_curl_set_long(handle, CURLOPT_HTTPGET, 1)
                } else {
                    _ = pipe_curl_set_pointer(
                        handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                    _ = pipe_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, request.body.count)
                    _ = pipe_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
                }
                _ = pipe_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errors.baseAddress))
                _ = pipe_curl_set_write_callback(handle, httpClientBody)
                _ = pipe_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
                _ = pipe_curl_set_header_callback(handle, httpClientHeader)
                _ = pipe_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
                return curl_easy_perform(handle)
            }
        }
        // A body cut at the caller's limit stops the transfer on purpose: the answer is what arrived.
        guard result == CURLE_OK || (result == CURLE_WRITE_ERROR && collector.bodyTruncated) else {
            let detail = String(cString: errorBuffer)
            throw HTTPClientError(
                Self.kind(of: result),
                "\(request): \(detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail)")
        }
        var status = 0
        _ = pipe_curl_response_code(handle, &status)
        return HTTPClientResponse(
            status: status, headers: collector.headers, body: collector.body, bodyTruncated: collector.bodyTruncated,
            headersTruncated: collector.headersTruncated)
    }

    private func configure(
        _ handle: UnsafeMutableRawPointer, _ request: HTTPClientRequest, headers: UnsafeMutablePointer<curl_slist>?
    ) {
        let total = Int(max(1, request.totalSeconds * 1000))
        _ = pipe_curl_set_string(handle, CURLOPT_URL, request.url)
        _ = pipe_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = pipe_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        // Threads and signals do not mix: libcurl must not use SIGALRM for its timeouts.
        _ = pipe_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = pipe_curl_set_long(handle, CURLOPT_TIMEOUT_MS, total)
        _ = pipe_curl_set_long(
            handle, CURLOPT_CONNECTTIMEOUT_MS, min(total, Int(max(1, request.connectSeconds * 1000))))
        _ = pipe_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        _ = pipe_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile { _ = pipe_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
        _ = pipe_curl_set_list(handle, CURLOPT_HTTPHEADER, headers)
        _ = pipe_curl_set_string(handle, CURLOPT_USERAGENT, userAgent)
    }

    private func validate(_ request: HTTPClientRequest) throws(HTTPClientError) {
        func refuse(_ why: String) -> HTTPClientError { HTTPClientError(.invalidRequest, "\(request): \(why)") }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(HTTPHeaders.isTokenByte) else {
            throw refuse("the method is not an HTTP token")
        }
        let lower = request.url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw refuse("only http:// and https:// URLs are called")
        }
        guard !request.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw refuse("the URL holds a space or a control character; percent-encode it")
        }
        let afterScheme = request.url.drop { $0 != "/" }.dropFirst(2)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else {
            throw refuse("the URL holds credentials; send them in a header (Authorization) instead")
        }
        for field in request.headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPHeaders.isTokenByte) else {
                throw refuse("a header name is not an HTTP token")
            }
            // The value is never repeated: it may be a token.
            guard HTTPHeaders.controlByte(in: field.value) == nil else {
                throw refuse("the value of header \(field.name) holds CR, LF or another control character")
            }
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw refuse("the CA file \(caFile) cannot be read; check the path given for the forge's certificates")
        }
    }

    private static func kind(of result: CURLcode) -> HTTPClientError.Kind {
        switch result {
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .connect
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_CERTPROBLEM:
            return .tls
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT: return .invalidRequest
        default: return .transfer
        }
    }
}

/// What libcurl's callbacks collect, within the caller's bounds.
private final class ResponseCollector {
    let maxBody: Int
    let maxHeaders: Int
    var body: [UInt8] = []
    var bodyTruncated = false
    var headers: [(name: String, value: String)] = []
    var headerBytes = 0
    var headersTruncated = false

    init(maxBody: Int, maxHeaders: Int) {
        self.maxBody = maxBody
        self.maxHeaders = maxHeaders
    }

    /// Takes a piece of body; `false` once the limit is passed (the transfer stops there).
    func takeBody(_ piece: UnsafeRawBufferPointer) -> Bool {
        let room = maxBody - body.count
        body.append(contentsOf: piece.prefix(max(0, room)))
        if piece.count > room { bodyTruncated = true }
        return piece.count <= room
    }

    func takeHeaderLine(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // Each answer's head starts with its status line (a 100 Continue comes before the real one).
        if text.hasPrefix("HTTP/") {
            headers = []
            headerBytes = 0
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        headerBytes += line.count
        guard headerBytes <= maxHeaders else {
            headersTruncated = true
            return
        }
        headers.append(
            (String(text[..<colon]), String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
    }
}

private func httpClientBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
    let piece = UnsafeRawBufferPointer(start: data, count: size * count)
    return collector.takeBody(piece) ? size * count : 0
}

private func httpClientHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let collector = Unmanaged<ResponseCollector>.fromOpaque(context).takeUnretainedValue()
    collector.takeHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

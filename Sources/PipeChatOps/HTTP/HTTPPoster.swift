import CCurl
import Foundation

/// Outgoing HTTP with libcurl: one `POST` of a JSON body, with time limits, no redirects, HTTP(S) only.
///
/// Thread rule: each call makes its own easy handle, used only on the calling thread.
public enum HTTPPoster {
    /// How a post ended.
    public enum Outcome: Sendable, Equatable {
        /// The server answered with this status.
        case answered(status: Int)
        /// No answer: the connection failed or timed out (libcurl's words).
        case failed(String)

        /// A 2xx answer.
        public var isSuccess: Bool {
            if case .answered(let status) = self { return (200..<300).contains(status) }
            return false
        }
    }

    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    /// Posts `body` as `application/json` to `url` and waits at most `timeoutSeconds` for the answer.
    public static func postJSON(_ body: [UInt8], to url: String, timeoutSeconds: Double = 10) -> Outcome {
        guard initialized else { return .failed("libcurl could not be initialised") }
        guard let handle = curl_easy_init() else { return .failed("libcurl could not make a handle") }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Content-Type: application/json")
        headers = curl_slist_append(headers, "Expect:")
        defer { curl_slist_free_all(headers) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let milliseconds = Int(max(1, timeoutSeconds * 1000))
        let result: CURLcode = body.withUnsafeBufferPointer { bytes in
            errorBuffer.withUnsafeMutableBufferPointer { errors in
                _ = pipe_curl_set_string(handle, CURLOPT_URL, url)
                _ = pipe_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
                _ = pipe_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                // Threads and signals do not mix: libcurl must not use SIGALRM for its timeouts.
                _ = pipe_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
                _ = pipe_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
                _ = pipe_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(milliseconds, 5000))
                _ = pipe_curl_set_long(handle, CURLOPT_POST, 1)
                _ = pipe_curl_set_pointer(
                    handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                _ = pipe_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, bytes.count)
                _ = pipe_curl_set_list(handle, CURLOPT_HTTPHEADER, headers)
                _ = pipe_curl_set_string(handle, CURLOPT_USERAGENT, "pipe-chatops")
                _ = pipe_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errors.baseAddress))
                // The answer's body is not needed: read and dropped.
                _ = pipe_curl_set_write_callback(handle) { _, size, count, _ in size * count }
                return curl_easy_perform(handle)
            }
        }
        guard result == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            return .failed(detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail)
        }
        var status = 0
        _ = pipe_curl_response_code(handle, &status)
        return .answered(status: status)
    }
}

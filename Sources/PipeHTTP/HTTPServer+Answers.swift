import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Sending answers: whole ones from a copy of their body, streamed ones from their `HTTPResponseStream` as the
/// producer fills it.
extension HTTPServer {
    func refuse(_ state: RequestState, on connection: OpaquePointer, _ response: HTTPResponse, reason: String)
        -> MHD_Result
    {
        state.responded = true
        refusalObserver(for: state.endpoint)?.refused(
            state.head, remoteAddress: state.head.remoteAddress, status: response.status, reason: reason)
        return send(response, on: connection, state: state)
    }

    func send(_ response: HTTPResponse, on connection: OpaquePointer, state: RequestState) -> MHD_Result {
        var response = response
        do {
            try HTTPHeaders.validate(value: response.contentType, of: "Content-Type")
        } catch {
            refusalObserver(for: state.endpoint)?.refused(
                state.head, remoteAddress: state.head.remoteAddress, status: 500,
                reason: "the endpoint's answer was not sent: \(error.message)")
            response = .text(500, "the answer could not be sent")
        }
        guard let producer = response.producer else {
            let created = response.body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
            guard let created else { return .NO }
            defer { MHD_destroy_response(created) }
            Self.addHeaders(of: response, to: created)
            return MHD_queue_response(connection, UInt32(response.status), created)
        }
        return stream(response, from: producer, on: connection, state: state)
    }

    private func stream(
        _ response: HTTPResponse, from producer: HTTPResponseProducer, on connection: OpaquePointer,
        state: RequestState
    ) -> MHD_Result {
        let stream = HTTPResponseStream(capacity: producer.bufferBytes)
        let reader = StreamReader(stream: stream, descriptor: pipe_mhd_connection_fd(connection))
        let context = Unmanaged.passRetained(reader).toOpaque()
        guard
            let created = MHD_create_response_from_callback(
                UInt64.max, min(producer.bufferBytes, 16 * 1024), httpStreamRead, context, httpStreamFreed)
        else {
            Unmanaged<StreamReader>.fromOpaque(context).release()
            return .NO
        }
        defer { MHD_destroy_response(created) }
        Self.addHeaders(of: response, to: created)
        // The total time does not bound a streamed answer (a log followed for an hour); the stall limit does.
        _ = pipe_mhd_set_idle_timeout(connection, 0)
        state.stream = stream
        let queued = MHD_queue_response(connection, UInt32(response.status), created)
        guard queued == .YES else {
            stream.close()
            return queued
        }
        producers.enter()
        let thread = Thread { [producers] in
            producer.produce(stream)
            stream.finish()
            producers.leave()
        }
        thread.name = "pipe-http-stream"
        thread.start()
        return queued
    }

    private static func addHeaders(of response: HTTPResponse, to created: OpaquePointer) {
        _ = MHD_add_response_header(created, "Content-Type", response.contentType)
        for field in response.headers { _ = MHD_add_response_header(created, field.name, field.value) }
        if response.headers.value("Cache-Control") == nil {
            _ = MHD_add_response_header(created, "Cache-Control", "no-store")
        }
    }
}

/// What libmicrohttpd's reader callback reads a streamed answer from.
private final class StreamReader {
    let stream: HTTPResponseStream
    let descriptor: Int32

    init(stream: HTTPResponseStream, descriptor: Int32) {
        self.stream = stream
        self.descriptor = descriptor
    }

    /// Whether the client has hung up: the thread waits in the callback, so libmicrohttpd cannot see it itself. A
    /// client that shuts down only its sending side after the request counts as gone too.
    func clientGone() -> Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Self.readHangUp, revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        return entry.revents & (Self.readHangUp | Int16(POLLHUP | POLLERR | POLLNVAL)) != 0
    }

    /// Linux's `POLLRDHUP` (the peer closed its side), which Glibc's module leaves out without `_GNU_SOURCE`.
    private static let readHangUp: Int16 = 0x2000
}

private func httpStreamRead(
    _ context: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int
) -> Int {
    guard let context, let buffer else { return -2 }
    let reader = Unmanaged<StreamReader>.fromOpaque(context).takeUnretainedValue()
    switch reader.stream.take(into: buffer, count: max, clientGone: reader.clientGone) {
    case .bytes(let count): return count
    case .end: return -1  // MHD_CONTENT_READER_END_OF_STREAM
    case .failed: return -2  // MHD_CONTENT_READER_END_WITH_ERROR
    }
}

private func httpStreamFreed(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let reader = Unmanaged<StreamReader>.fromOpaque(context).takeRetainedValue()
    reader.stream.close()
}

/// Addresses and request values read from libmicrohttpd.
enum HTTPPeer {
    static func address(of connection: OpaquePointer) -> String {
        guard let address = pipe_mhd_client_address(connection) else { return "unknown" }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(
            Int32(address.pointee.sa_family) == AF_INET6
                ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return "unknown"
        }
        return String(cString: host)
    }

    /// A request's headers (names lower case, repeated ones joined and named) or query arguments (first kept).
    static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> (
        [String: String], Set<String>
    ) {
        let collected = ValueCollector(headers: kind == .HEADER_KIND)
        let context = Unmanaged.passUnretained(collected).toOpaque()
        _ = MHD_get_connection_values(connection, kind, httpValueIterator, context)
        return (collected.values, collected.repeated)
    }

    static func fill(_ storage: inout sockaddr_storage, address: String, port: UInt16) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_port = port.bigEndian
                    $0.pointee.sin_addr = v4
                }
            }
            return true
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = port.bigEndian
                    $0.pointee.sin6_addr = v6
                }
            }
            return true
        }
        return false
    }
}

/// Collects values from libmicrohttpd's iterator.
private final class ValueCollector {
    /// Headers: names in lower case, a repeated one's values joined. Query arguments: the first value kept.
    let headers: Bool
    var values: [String: String] = [:]
    var repeated: Set<String> = []

    init(headers: Bool) { self.headers = headers }

    func add(_ given: String, _ value: String) {
        let name = headers ? given.lowercased() : given
        if values[name] != nil {
            repeated.insert(name)
            if headers { values[name] = values[name].map { $0 + ", " + value } }
        } else {
            values[name] = value
        }
    }
}

private func httpValueIterator(
    _ context: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let context, let key else { return .YES }
    let collector = Unmanaged<ValueCollector>.fromOpaque(context).takeUnretainedValue()
    collector.add(String(cString: key), value.map { String(cString: $0) } ?? "")
    return .YES
}

import Foundation
import PipeForge
import PipeHTTP

/// The forges' API over libcurl: a `ForgeRequest` sent under its forge's base URL, the answer bounded.
enum ForgeHTTPTransport {
    /// Forge answers Pipe reads are small (an id, a list page): anything past this is cut.
    static let maxAnswerBytes = 2 * 1024 * 1024

    static func make(client: HTTPClient = HTTPClient()) -> ForgeOutboxDelivery.Transport {
        { request, apiBase in
            let http = HTTPClientRequest(
                request.method.rawValue, request.url(apiBase: apiBase.absoluteString),
                headers: request.headers.map { (name: $0.0, value: $0.1) }, body: request.body?.encoded ?? [],
                maxResponseBytes: maxAnswerBytes, connectSeconds: 10, totalSeconds: 30)
            do {
                let answer = try client.send(http)
                return .success(
                    ForgeResponse(
                        status: answer.status, headers: answer.headers.map { ($0.name, $0.value) }, body: answer.body))
            } catch {
                return .failure(ForgeTransportFailure("\(error)"))
            }
        }
    }
}

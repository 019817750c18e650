import Foundation
import PipeBasics
import PipeCore
import PipeForge
import PipeHTTP

/// One forge's webhook endpoint on the controller's listener: the delivery is verified with that forge's secret
/// before a byte of it is parsed, read, and handed to the intake; the statuses of what it queued (or reused) go to
/// the outbox. Every delivery, accepted or refused, lands in the run store's audit log in bounded form.
final class ForgeWebhookHandler: HTTPHandler, @unchecked Sendable {
    typealias Store = ForgeIntake.Store & AuditLogStore

    private let forge: ForgeConfig
    private let verifier: WebhookVerifier
    private let intake: ForgeIntake
    private let reporter: ForgeReporter
    private let store: Store
    private let wakeSender: () -> Void
    private let log: (String) -> Void
    /// The intake reads and writes the queue in steps: one delivery at a time keeps its decisions whole.
    private let lock = NSLock()

    init(
        forge: ForgeConfig, verifier: WebhookVerifier, intake: ForgeIntake, reporter: ForgeReporter, store: Store,
        wakeSender: @escaping () -> Void, log: @escaping (String) -> Void
    ) {
        self.forge = forge
        self.verifier = verifier
        self.intake = intake
        self.reporter = reporter
        self.store = store
        self.wakeSender = wakeSender
        self.log = log
    }

    var endpoint: HTTPEndpoint {
        HTTPEndpoint(
            "\(forge.name) webhooks", path: .exact(forge.webhook.path), methods: ["POST"],
            limits: HTTPEndpointLimits(maxBodyBytes: forge.webhook.maxBodyBytes, requestSeconds: 60, answerSeconds: 10),
            handler: self)
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let headers = request.head.headers.map { WebhookRequest.Header($0.key, $0.value) }
        let delivery: WebhookDelivery
        do {
            let verified = try verifier.verify(
                WebhookRequest(path: request.head.path, headers: headers, body: request.body))
            delivery = try WebhookReader.read(verified)
        } catch {
            audit(["verdict": "refused", "status": error.httpStatus, "reason": error.message], head: request.head)
            return .text(error.httpStatus, error.message)
        }
        do {
            let result = try lock.withLock { () throws -> ForgeIntakeResult in
                let result = try intake.accept(delivery)
                for action in result.actions {
                    switch action {
                    case .superseded(let runID, let sha): try reporter.superseded(runID, bySHA: sha)
                    case .stopped(let runID, _): try reporter.report(runID)
                    default: break
                    }
                }
                for runID in result.reportedRuns { try reporter.report(runID) }
                return result
            }
            wakeSender()
            audit(
                [
                    "verdict": "accepted", "status": 202, "event": delivery.eventName,
                    "delivery": delivery.deliveryID ?? "", "digest": delivery.bodyDigest, "result": result.summary,
                    "runs": result.reportedRuns,
                ], head: request.head)
            return .json(202, ["result": result.summary, "runs": result.reportedRuns])
        } catch {
            // The store could not take it: 503 asks the forge to deliver again later.
            log("forge \(forge.name): a delivery could not be handled: \(error)")
            audit(["verdict": "failed", "status": 503, "reason": "\(error)"], head: request.head)
            return .text(503, "Pipe could not record the delivery; deliver it again later")
        }
    }

    func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {
        audit(["verdict": "refused", "status": status ?? 0, "reason": reason, "remote": remoteAddress], head: head)
    }

    /// One bounded entry per delivery; the body itself is never kept.
    private func audit(_ fields: [String: Any], head: HTTPRequestHead?) {
        var entry = fields.mapValues { value -> Any in
            guard let text = value as? String else { return value }
            return ForgeTextCut.cut(text, toScalars: 500)
        }
        entry["forge"] = forge.name
        if let head {
            entry["path"] = ForgeTextCut.cut(head.path, toScalars: 200)
            entry["remote"] = head.remoteAddress
        }
        guard let data = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys]) else { return }
        do {
            try store.appendAudit(
                source: "forge:\(forge.name)", entry: String(decoding: data, as: UTF8.self), at: Date())
        } catch {
            log("forge \(forge.name): the audit log could not be written: \(error)")
        }
    }
}

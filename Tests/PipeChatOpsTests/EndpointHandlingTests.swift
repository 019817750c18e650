import Foundation
import PipeChatOps
import PipeCore
import XCTest

/// The endpoint's decisions for one request at a time, over real HTTP, with a backend that records what it was
/// asked (the backends themselves are tested end to end with `pipe chatops serve`).
final class EndpointHandlingTests: XCTestCase {
    /// Keeps what the endpoint asked; queues nothing anywhere.
    final class RecordingBackend: ChatOpsBackend, @unchecked Sendable {
        private let lock = NSLock()
        private(set) var enqueued: [ChatRunRequest] = []
        private(set) var approvals: [ChatApprovalRequest] = []

        func pipelineNames() throws -> [String] { ["app-intents", "haptics"] }

        func enqueue(_ request: ChatRunRequest) throws -> ChatQueuedRun {
            lock.lock()
            defer { lock.unlock() }
            enqueued.append(request)
            return ChatQueuedRun(runID: "20261129-140312-7f3a", pipeline: request.pipeline, ref: request.ref ?? "HEAD")
        }

        func resolveRun(_ typed: String?) throws -> String {
            throw ChatOpsBackendError("no run matches '\(typed ?? "last")'")
        }

        func record(run runID: String) throws -> RunRecord? { nil }
        func runs(pipeline: String?, limit: Int) throws -> [RunSummary] { [] }
        func signoff(_ request: ChatSignoffRequest) throws -> ChatSignoffReceipt { throw ChatOpsBackendError("no") }
        func gate(run runID: String, gate: Gate) throws -> ChatGateReport { throw ChatOpsBackendError("no") }
        func hosts() throws -> [ChatHostReport] { [] }

        func approve(_ request: ChatApprovalRequest, finished: @escaping @Sendable (String) -> Void) throws
            -> String
        {
            guard request.userID == "U1" else { throw ChatApprovalRefused("\(request.userID) approves nothing") }
            lock.lock()
            defer { lock.unlock() }
            approvals.append(request)
            return "approving #\(request.number)"
        }
    }

    final class MemoryAudit: ChatAuditLog, @unchecked Sendable {
        private let lock = NSLock()
        private(set) var entries: [ChatAuditEntry] = []
        func record(_ entry: ChatAuditEntry) throws {
            lock.lock()
            entries.append(entry)
            lock.unlock()
        }
    }

    private var endpoint: ChatOpsEndpoint?

    override func tearDown() {
        endpoint?.stop()
        super.tearDown()
    }

    private func start(_ dialect: ChatDialect, backend: RecordingBackend, audit: MemoryAudit) throws -> String {
        var config = ChatOpsConfig(
            port: 0, dialect: dialect, secret: .environment("unused"),
            responseURLs: [try ResponseURLRule("https://hooks.example.com/")],
            authorization: ChatAuthorization(users: ["U1": .init(run: ["app-intents"]), "U2": .init(run: [])]))
        config.address = "127.0.0.1"
        let endpoint = ChatOpsEndpoint(config: config, secret: "the-token", backend: backend, audit: audit) { _ in }
        self.endpoint = endpoint
        let port = try endpoint.start()
        return "http://127.0.0.1:\(port)/chatops/slash"
    }

    private func post(_ body: String, to url: String, headers: [String] = []) throws -> (Int, String) {
        var arguments = ["-s", "-w", "\n%{http_code}", "--data-binary", body]
        for header in headers { arguments += ["-H", header] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments + [url]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? -1, lines.dropLast().joined(separator: "\n"))
    }

    func testMattermostsTokenFieldIsTheProofAndTheRunIsQueuedWithTheChatIdentity() throws {
        let backend = RecordingBackend()
        let audit = MemoryAudit()
        let url = try start(.mattermost, backend: backend, audit: audit)
        let form =
            "token=the-token&user_id=U1&user_name=alice&channel_id=C1&team_id=T1&command=%2Fpipe"
            + "&text=run+app-intents+ref%3Dmain+scheme%3D%22Reader+App%22&response_url=https%3A%2F%2Fevil.example%2Fx"
        let (status, body) = try post(form, to: url)
        XCTAssertEqual(status, 200, body)
        XCTAssertTrue(body.contains("queued as run 20261129-140312-7f3a — app-intents @ main"), body)
        XCTAssertTrue(body.contains("results will not be posted here"), "an unknown response_url is not used: \(body)")
        XCTAssertEqual(backend.enqueued.first?.parameters, [KeyValuePair("scheme", "Reader App")])
        XCTAssertEqual(backend.enqueued.first?.requestedBy, "alice (U1)")
        XCTAssertEqual(try post(form.replacingOccurrences(of: "the-token", with: "other"), to: url).0, 401)
        XCTAssertEqual(try post(form.replacingOccurrences(of: "token=the-token&", with: ""), to: url).0, 401)
        XCTAssertEqual(backend.enqueued.count, 1)
        XCTAssertEqual(audit.entries.map(\.status), [200, 401, 401])
        XCTAssertEqual(audit.entries.first?.runID, "20261129-140312-7f3a")
    }

    func testAnUnknownPipelineGetsTheNearestNameAndAStrangerIsRefused() throws {
        let backend = RecordingBackend()
        let audit = MemoryAudit()
        let url = try start(.mattermost, backend: backend, audit: audit)
        let base = "token=the-token&channel_id=C1&team_id=T1&command=%2Fpipe"
        let (status, body) = try post(base + "&user_id=U1&text=run+haptcs", to: url)
        XCTAssertEqual(status, 200)
        XCTAssertTrue(body.contains("no pipeline 'haptcs'; did you mean 'haptics'?"), body)
        let (denied, reason) = try post(base + "&user_id=U1&text=run+haptics", to: url)
        XCTAssertEqual(denied, 403)
        XCTAssertTrue(reason.contains("U1 may not run haptics"), reason)
        XCTAssertEqual(try post(base + "&user_id=U7&text=runs", to: url).0, 403)
        XCTAssertEqual(try post(base + "&user_id=U7&text=help", to: url).0, 200, "help needs no grant")
        XCTAssertTrue(backend.enqueued.isEmpty)
        XCTAssertEqual(audit.entries.map(\.decision), [.failed, .refused, .refused, .accepted])
    }

    func testAnApprovalIsAnsweredAtOnceAndOnlyAChatApproverGivesOne() throws {
        let backend = RecordingBackend()
        let audit = MemoryAudit()
        let url = try start(.mattermost, backend: backend, audit: audit)
        let base = "token=the-token&channel_id=C1&team_id=T1&command=%2Fpipe"
        let head = String(repeating: "ab", count: 20)
        let (status, body) = try post(base + "&user_id=U1&user_name=alice&text=approve+github+%2342+\(head)", to: url)
        XCTAssertEqual(status, 200, body)
        XCTAssertTrue(body.contains("approving #42"), body)
        XCTAssertTrue(body.contains("the outcome will not be posted here"), "no response_url was given: \(body)")
        XCTAssertEqual(
            backend.approvals,
            [ChatApprovalRequest(forge: "github", number: 42, headSHA: head, userID: "U1", approvedBy: "alice (U1)")])
        let (denied, reason) = try post(base + "&user_id=U2&text=approve+github+42", to: url)
        XCTAssertEqual(denied, 403)
        XCTAssertTrue(reason.contains("U2 approves nothing"), reason)
        let (short, help) = try post(base + "&user_id=U1&text=approve+github+42+abab", to: url)
        XCTAssertEqual(short, 200)
        XCTAssertTrue(help.contains("not a full commit id"), help)
        XCTAssertEqual(backend.approvals.count, 1, "neither the refusal nor the short id reached the backend")
        XCTAssertEqual(audit.entries.map(\.decision), [.accepted, .refused, .failed])
        XCTAssertEqual(audit.entries.first?.command, "approve")
    }
}

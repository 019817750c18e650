import Foundation
import PipeChatOps
import PipeCore

/// The chat-ops audit log in the run store (every request, allowed or refused), and optionally a JSON-lines copy
/// for tools that tail a file.
final class StoreChatAuditLog: ChatAuditLog, @unchecked Sendable {
    private let store: AuditLogStore
    private let copy: ChatAuditLog?
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    init(store: AuditLogStore, copy: ChatAuditLog?) {
        self.store = store
        self.copy = copy
    }

    func record(_ entry: ChatAuditEntry) throws {
        let json = String(decoding: try encoder.encode(entry), as: UTF8.self)
        try store.appendAudit(source: "chat", entry: json, at: Date())
        try copy?.record(entry)
    }
}

import Foundation

/// Checks on the values read from a payload; each failure names the field and the rule.
enum PayloadChecks {
    /// A commit id: 40 hex digits (SHA-1) or 64 (SHA-256 repositories), returned lowercase.
    static func sha(_ text: String, _ field: String) throws(WebhookRefusal) -> String {
        let lowered = text.lowercased()
        guard lowered.utf8.count == 40 || lowered.utf8.count == 64,
            lowered.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw WebhookRefusal(.malformed, "\(field) is not a commit id (40 or 64 hex digits)")
        }
        return lowered
    }

    /// A commit id, `nil` for the all-zero one a forge sends for "none" (created or deleted refs).
    static func optionalSHA(_ text: String, _ field: String) throws(WebhookRefusal) -> String? {
        let sha = try sha(text, field)
        return sha.utf8.allSatisfy { $0 == UInt8(ascii: "0") } ? nil : sha
    }

    static func fullRef(_ text: String, _ field: String) throws(WebhookRefusal) -> String {
        if let problem = GitRefName.problem(withFullRef: text) {
            throw WebhookRefusal(.malformed, "\(field) is not a valid git ref: it \(problem)")
        }
        return text
    }

    static func branch(_ text: String, _ field: String) throws(WebhookRefusal) -> String {
        if let problem = GitRefName.problem(withBranch: text) {
            throw WebhookRefusal(.malformed, "\(field) is not a valid branch name: it \(problem)")
        }
        return text
    }

    /// A repository, login, label or id: bounded, without control characters.
    static func name(_ text: String, _ field: String) throws(WebhookRefusal) -> String {
        guard !text.isEmpty, text.utf8.count <= WebhookLimits.nameBytes else {
            throw WebhookRefusal(
                .malformed, "\(field) is \(text.utf8.count) bytes; expected 1 to \(WebhookLimits.nameBytes)")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw WebhookRefusal(.malformed, "\(field) holds a control character")
        }
        return text
    }

    static func optionalName(_ text: String?, _ field: String) throws(WebhookRefusal) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return try name(text, field)
    }

    /// A title: kept as written (it is data), only bounded.
    static func title(_ text: String, _ field: String) throws(WebhookRefusal) -> String {
        let count = text.unicodeScalars.count
        guard count <= WebhookLimits.titleCharacters else {
            throw WebhookRefusal(
                .malformed, "\(field) is \(count) characters, more than \(WebhookLimits.titleCharacters)")
        }
        return text
    }

    static func labels(_ names: [String], _ field: String) throws(WebhookRefusal) -> [String] {
        guard names.count <= WebhookLimits.labels else {
            throw WebhookRefusal(.malformed, "\(field) holds \(names.count) labels, more than \(WebhookLimits.labels)")
        }
        var checked: [String] = []
        for (index, label) in names.enumerated() { checked.append(try name(label, "\(field)[\(index)]")) }
        return checked
    }

    /// Refuses nesting deeper than `WebhookLimits.jsonDepth` before a JSON parser recurses into it.
    static func depth(_ body: [UInt8]) throws(WebhookRefusal) {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth <= WebhookLimits.jsonDepth else {
                    throw WebhookRefusal(
                        .malformed, "the payload nests deeper than \(WebhookLimits.jsonDepth) levels")
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
    }

    /// Decodes the payload into `type`; a missing or mistyped field is named by its path.
    static func decode<Payload: Decodable>(_ type: Payload.Type, _ body: [UInt8], event: String)
        throws(WebhookRefusal) -> Payload
    {
        try depth(body)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw WebhookRefusal(.malformed, "the \(event) payload \(describe(error))")
        } catch {
            throw WebhookRefusal(.malformed, "the \(event) payload is not JSON")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (last.map { [$0] } ?? [])
            let text = keys.map { key in key.intValue.map { "[\($0)]" } ?? snake(key.stringValue) }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
            return text.isEmpty ? "(top level)" : text
        }
        switch error {
        case .keyNotFound(let key, let context): return "has no \(path(context.codingPath, key))"
        case .valueNotFound(_, let context): return "has null at \(path(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "has the wrong type at \(path(context.codingPath)) (expected \(type))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "is not JSON" : "has an unreadable \(path(context.codingPath))"
        @unknown default: return "is not readable"
        }
    }

    /// `pullRequest` back to the payload's `pull_request`.
    private static func snake(_ key: String) -> String {
        var text = ""
        for character in key {
            if character.isUppercase {
                text += "_" + character.lowercased()
            } else {
                text.append(character)
            }
        }
        return text
    }
}

import Foundation
import PipeForge
import PipeTestSupport

/// Holds a request Pipe built to the forge's published contract (Tests/ForgeContract): the operation its method
/// and path name, its path and query parameters, and its JSON body's fields, types, enums, lengths and counts.
/// GitHub's subset is OpenAPI 3, Gitea's Swagger 2, GitLab's a hand-made summary of its docs; limits the forges
/// enforce but do not describe (GitHub's 140-character status description) are added from LIMITS.md.
struct ForgeContractChecker {
    let forge: ForgeKind
    private let operations: [Operation]

    struct Operation {
        var id: String
        var method: String
        var template: [String]
        var pathTypes: [String: String]
        var query: [String: [String: Any]]
        var body: [String: Any]?
    }

    static let root = RepositoryPaths.root.appendingPathComponent("Tests/ForgeContract")

    private static let lock = NSLock()
    nonisolated(unsafe) private static var loaded: [ForgeKind: ForgeContractChecker] = [:]

    /// The checker of `forge`, its contract read once per test process.
    static func of(_ forge: ForgeKind) throws -> ForgeContractChecker {
        try lock.withLock {
            if let checker = loaded[forge] { return checker }
            let checker = try ForgeContractChecker(forge)
            loaded[forge] = checker
            return checker
        }
    }

    init(_ forge: ForgeKind) throws {
        self.forge = forge
        switch forge {
        case .github: operations = try ForgeContractChecker.openAPI("github/openapi-subset.json", swagger2: false)
        case .gitea: operations = try ForgeContractChecker.openAPI("gitea/openapi-subset.json", swagger2: true)
        case .gitlab: operations = try ForgeContractChecker.gitlab()
        }
    }

    /// The operation `request` is, or nil when the contract pack does not describe it.
    func operation(of request: ForgeRequest) -> Operation? {
        let segments = ForgeContractChecker.segments(request.path)
        return operations.first { operation in
            operation.method == request.method.rawValue && operation.template.count == segments.count
                && zip(operation.template, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
    }

    /// Every way `request` breaks its operation's contract; empty when it keeps it.
    func problems(_ request: ForgeRequest) -> [String] {
        guard let operation = operation(of: request) else {
            return ["\(request.method.rawValue) \(request.path) is no operation of the \(forge) contract"]
        }
        var problems: [String] = []
        let segments = ForgeContractChecker.segments(request.path)
        for (template, segment) in zip(operation.template, segments) where template.hasPrefix("{") {
            let name = String(template.dropFirst().dropLast())
            let decoded = segment.removingPercentEncoding ?? ""
            if decoded.isEmpty { problems.append("path parameter \(name) is empty") }
            if operation.pathTypes[name] == "integer", Int(decoded) == nil {
                problems.append("path parameter \(name) is \(decoded), not an integer")
            }
        }
        for (name, value) in request.query {
            guard let schema = operation.query[name] else {
                problems.append("query parameter \(name) is not in \(operation.id)")
                continue
            }
            if schema["type"] as? String == "integer", Int(value) == nil {
                problems.append("query parameter \(name)=\(value) is not an integer")
            }
            if let allowed = schema["enum"] as? [String], !allowed.contains(value) {
                problems.append("query parameter \(name)=\(value) is not one of \(allowed)")
            }
        }
        switch (operation.body, request.body) {
        case (nil, nil): break
        case (nil, .some): problems.append("\(operation.id) takes no body")
        case (.some(let schema), nil):
            if !((schema["required"] as? [String]) ?? []).isEmpty { problems.append("\(operation.id) needs a body") }
        case (.some(let schema), .some(let body)):
            problems += validate(body, against: schema, at: "body")
            problems += extraLimits(operation.id, body)
        }
        return problems
    }

    /// Limits the forges enforce that their descriptions leave out (Tests/ForgeContract/github/LIMITS.md).
    private func extraLimits(_ id: String, _ body: ForgeJSON) -> [String] {
        var problems: [String] = []
        if id == "repos/create-commit-status", let text = body["description"]?.stringValue,
            text.unicodeScalars.count > 140
        {
            problems.append("body.description has \(text.unicodeScalars.count) characters; GitHub refuses past 140")
        }
        if id == "issues/create-comment" || id == "issues/update-comment", let text = body["body"]?.stringValue,
            text.unicodeScalars.count > 65_536
        {
            problems.append("body.body has \(text.unicodeScalars.count) characters; GitHub refuses past 65536")
        }
        for annotation in body["output"]?["annotations"]?.arrayValue ?? [] {
            if let title = annotation["title"]?.stringValue, title.unicodeScalars.count > 255 {
                problems.append("an annotation title is longer than 255 characters")
            }
            if let message = annotation["message"]?.stringValue, message.utf8.count > 64 * 1024 {
                problems.append("an annotation message is over 64 KB")
            }
        }
        if id == "repoCreateStatus", let state = body["state"]?.stringValue,
            !["pending", "success", "error", "failure", "warning"].contains(state)
        {
            problems.append("body.state \(state) is no Gitea status state")
        }
        return problems
    }

    // MARK: Schema validation (the subset of JSON Schema the contracts use)

    func validate(_ value: ForgeJSON, against schema: [String: Any], at place: String) -> [String] {
        var problems: [String] = []
        if let type = schema["type"] as? String, !ForgeContractChecker.matches(value, type) {
            return ["\(place) is not of type \(type)"]
        }
        if let allowed = schema["enum"] as? [Any] {
            let strings = allowed.compactMap { $0 as? String }
            if let text = value.stringValue, !strings.contains(text) {
                problems.append("\(place) = \(text) is not one of \(strings)")
            }
        }
        if let maxLength = schema["maxLength"] as? Int, let text = value.stringValue,
            text.unicodeScalars.count > maxLength
        {
            problems.append("\(place) has \(text.unicodeScalars.count) characters, over \(maxLength)")
        }
        if let items = value.arrayValue {
            if let maxItems = schema["maxItems"] as? Int, items.count > maxItems {
                problems.append("\(place) has \(items.count) items, over \(maxItems)")
            }
            if let itemSchema = schema["items"] as? [String: Any] {
                for (index, item) in items.enumerated() {
                    problems += validate(item, against: itemSchema, at: "\(place)[\(index)]")
                }
            }
        }
        if case .object(let members) = value {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in (schema["required"] as? [String]) ?? [] where !members.contains(where: { $0.0 == name }) {
                problems.append("\(place).\(name) is required")
            }
            let open = schema["additionalProperties"] as? Bool ?? false
            for (name, member) in members {
                if let property = properties[name] as? [String: Any] {
                    problems += validate(member, against: property, at: "\(place).\(name)")
                } else if !open && schema["properties"] != nil {
                    problems.append("\(place).\(name) is not a field of the operation")
                }
            }
        }
        for (keyword, needsOne) in [("oneOf", true), ("anyOf", false)] {
            guard let branches = schema[keyword] as? [[String: Any]] else { continue }
            let passing = branches.filter { validate(value, against: $0, at: place).isEmpty }.count
            if needsOne ? passing != 1 : passing == 0 {
                problems.append("\(place) matches \(passing) of the \(keyword) branches")
            }
        }
        return problems
    }

    private static func matches(_ value: ForgeJSON, _ type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("boolean", .bool), ("integer", .integer), ("number", .integer),
            ("number", .number), ("array", .array), ("object", .object):
            return true
        case ("integer|string", .integer), ("integer|string", .string): return true
        default: return false
        }
    }

    // MARK: Loading the contracts

    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    private static func load(_ file: String) throws -> [String: Any] {
        let data = try Data(contentsOf: root.appendingPathComponent(file))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    private static func openAPI(_ file: String, swagger2: Bool) throws -> [Operation] {
        let paths = try load(file)["paths"] as? [String: [String: Any]] ?? [:]
        var operations: [Operation] = []
        for (path, methods) in paths {
            for (method, value) in methods {
                guard let operation = value as? [String: Any], let id = operation["operationId"] as? String else {
                    continue
                }
                var pathTypes: [String: String] = [:]
                var query: [String: [String: Any]] = [:]
                var body: [String: Any]?
                for parameter in operation["parameters"] as? [[String: Any]] ?? [] {
                    let name = parameter["name"] as? String ?? ""
                    let schema = swagger2 ? parameter : (parameter["schema"] as? [String: Any] ?? [:])
                    switch parameter["in"] as? String {
                    case "path": pathTypes[name] = schema["type"] as? String
                    case "query": query[name] = schema
                    case "body": body = parameter["schema"] as? [String: Any]
                    default: break
                    }
                }
                if let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any],
                    let json = content["application/json"] as? [String: Any]
                {
                    body = json["schema"] as? [String: Any]
                }
                operations.append(
                    Operation(
                        id: id, method: method.uppercased(), template: segments(path), pathTypes: pathTypes,
                        query: query, body: body))
            }
        }
        return operations
    }

    private static func gitlab() throws -> [Operation] {
        let list = try load("gitlab/api-contract.json")["operations"] as? [[String: Any]] ?? []
        return list.map { operation in
            let params = operation["params"] as? [String: [String: Any]] ?? [:]
            let method = operation["method"] as? String ?? ""
            var pathTypes: [String: String] = [:]
            var query: [String: [String: Any]] = [:]
            var properties: [String: Any] = [:]
            var required: [String] = []
            for (name, param) in params {
                if param["in"] as? String == "path" {
                    pathTypes[name] = param["type"] as? String
                } else if method == "GET" {
                    query[name] = param
                } else {
                    properties[name] = param
                    if let alias = param["alias"] as? String { properties[alias] = param }
                    if param["required"] as? Bool == true { required.append(name) }
                }
            }
            let template = segments(operation["path"] as? String ?? "")
            for name in template where name.hasPrefix("{") {
                let key = String(name.dropFirst().dropLast())
                if pathTypes[key] == nil {
                    pathTypes[key] = key.hasSuffix("iid") || key.hasSuffix("_id") ? "integer" : "string"
                }
            }
            return Operation(
                id: operation["id"] as? String ?? "", method: method, template: template, pathTypes: pathTypes,
                query: query,
                body: method == "GET" ? nil : ["type": "object", "properties": properties, "required": required])
        }
    }
}

import Foundation

/// Turns a `DecodingError` into a JSON path and a sentence, for messages that point at the offending value.
enum DecodingFailure {
    static func describe(_ error: Error) -> (path: String, detail: String) {
        guard let decodingError = error as? DecodingError else {
            return ("the top level", String(describing: error))
        }
        switch decodingError {
        case .keyNotFound(let key, let context):
            return (path(context.codingPath), "the key \"\(key.stringValue)\" is missing")
        case .typeMismatch(let type, let context):
            return (path(context.codingPath), "expected \(typeName(type)): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return (path(context.codingPath), "expected \(typeName(type)) but found null")
        case .dataCorrupted(let context):
            var detail = context.debugDescription
            if let underlying = context.underlyingError {
                detail += " (\(underlying.localizedDescription))"
            }
            return (path(context.codingPath), detail)
        @unknown default:
            return ("the top level", String(describing: decodingError))
        }
    }

    /// `devices["com.apple.CoreSimulator.SimRuntime.iOS-17-4"][1].udid` style.
    static func path(_ codingPath: [CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the top level" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else if key.stringValue.contains(where: { !($0.isLetter || $0.isNumber || $0 == "_") }) {
                text += "[\"\(key.stringValue)\"]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type: return "an integer"
        case is Double.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }
}

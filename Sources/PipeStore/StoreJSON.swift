import Foundation

/// The JSON columns' encoding: sorted keys, so equal values are equal text.
public enum StoreJSON {
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from text: String, path: String, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError.unreadable(path: path, detail: "\(what) is not the JSON this Pipe writes: \(error)")
        }
    }
}

import Foundation

/// Decoding shared by the `xcresulttool` readers: typed errors that quote the output and point at the value.
enum XcresultJSON {
    static func decode<T: Decodable>(_ type: T.Type, from output: Data, command: String) throws -> T {
        guard output.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw XcresultError.emptyOutput(command: command)
        }
        guard (try? JSONSerialization.jsonObject(with: output, options: [])) is [String: Any] else {
            throw XcresultError.notJSON(command: command, firstLine: ToolOutput.firstLine(output))
        }
        do {
            return try JSONDecoder().decode(type, from: output)
        } catch {
            let failure = DecodingFailure.describe(error)
            throw XcresultError.invalidJSON(command: command, path: failure.path, detail: failure.detail)
        }
    }
}

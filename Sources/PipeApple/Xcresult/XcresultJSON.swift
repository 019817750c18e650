import Foundation

/// Decoding shared by the `xcresulttool` readers: typed errors that quote the output and point at the value.
enum XcresultJSON {
    static func decode<T: Decodable>(_ type: T.Type, from output: Data, command: String) throws -> T {
        guard output.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw XcresultError.emptyOutput(command: command)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: output, options: [])) as? [String: Any] else {
            throw XcresultError.notJSON(command: command, firstLine: ToolOutput.firstLine(output))
        }
        var text = output
        if ControlSequences.mayHoldControls(json: output),
            let clean = try? JSONSerialization.data(withJSONObject: ControlSequences.stripStrings(in: object))
        {
            text = clean
        }
        do {
            return try JSONDecoder().decode(type, from: text)
        } catch {
            let failure = DecodingFailure.describe(error)
            throw XcresultError.invalidJSON(command: command, path: failure.path, detail: failure.detail)
        }
    }
}

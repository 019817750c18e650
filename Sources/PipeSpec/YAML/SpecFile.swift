import Foundation

/// A spec file read from disk: its bytes (for libyaml) and its text (for snippets), named as the user named it.
struct SpecFile {
    let displayPath: String
    let bytes: [UInt8]
    let source: SourceText

    /// Reads `url`; an unreadable file is one problem without a position.
    static func read(_ url: URL) throws(SpecErrors) -> SpecFile {
        let displayPath = url.relativePath
        guard let data = FileManager.default.contents(atPath: url.path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            let reason =
                !exists
                ? "no such file; check the path"
                : isDirectory.boolValue
                    ? "this is a folder, not a file" : "cannot read this file; check its permissions"
            throw SpecErrors(SpecProblem(file: displayPath, mark: nil, message: reason))
        }
        let bytes = [UInt8](data)
        return SpecFile(
            displayPath: displayPath, bytes: bytes, source: SourceText(String(decoding: bytes, as: UTF8.self)))
    }

    init(displayPath: String, bytes: [UInt8], source: SourceText) {
        self.displayPath = displayPath
        self.bytes = bytes
        self.source = source
    }

    init(displayPath: String, text: String) {
        self.init(displayPath: displayPath, bytes: Array(text.utf8), source: SourceText(text))
    }

    /// The single document of the file (`nil` when it holds none).
    func parse() throws(SpecErrors) -> YAMLNode? {
        try YAMLParser.parse(bytes: bytes, source: source, file: displayPath)
    }
}

import Foundation

/// The output of `xcrun xccov view --report --json X.xcresult`: line coverage per target and per file.
///
/// Functions are not kept: a run record needs the lines per target and file, and a big app's function list is most
/// of the report's size. Keys are matched by name, never by order, and the line fractions are recomputed from the
/// counts (the host's rounding is not trusted).
public struct XccovReport: Equatable, Sendable, Decodable {
    public var coveredLines: Int
    public var executableLines: Int
    public var targets: [Target]

    /// One build product (`Reader.app`, `Core.framework`, `ReaderTests.xctest`).
    public struct Target: Equatable, Sendable, Decodable {
        public var name: String
        public var coveredLines: Int
        public var executableLines: Int
        public var files: [File]

        private enum CodingKeys: String, CodingKey {
            case name, coveredLines, executableLines, files
        }

        public init(name: String, coveredLines: Int, executableLines: Int, files: [File] = []) {
            self.name = name
            self.coveredLines = coveredLines
            self.executableLines = executableLines
            self.files = files
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            coveredLines = try XccovReport.count(container, .coveredLines)
            executableLines = try XccovReport.count(container, .executableLines)
            files = try container.decodeIfPresent([File].self, forKey: .files) ?? []
        }

        /// The name without its product extension: `Reader.app` → `Reader`, as a pipeline's `coverage.targets`
        /// names it.
        public var moduleName: String {
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
            return String(name[..<dot])
        }

        /// A test bundle's own lines say nothing about how well the app is tested.
        public var isTestBundle: Bool { name.hasSuffix(".xctest") }
    }

    /// One source file of a target.
    public struct File: Equatable, Sendable, Decodable {
        /// The absolute path at build time, on the host.
        public var path: String
        public var coveredLines: Int
        public var executableLines: Int

        private enum CodingKeys: String, CodingKey {
            case path, name, coveredLines, executableLines
        }

        public init(path: String, coveredLines: Int, executableLines: Int) {
            self.path = path
            self.coveredLines = coveredLines
            self.executableLines = executableLines
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            var path = try container.decodeIfPresent(String.self, forKey: .path)
            if path == nil { path = try container.decodeIfPresent(String.self, forKey: .name) }
            guard let path else {
                throw DecodingError.keyNotFound(
                    CodingKeys.path, .init(codingPath: container.codingPath, debugDescription: "a file needs a path"))
            }
            self.path = path
            coveredLines = try XccovReport.count(container, .coveredLines)
            executableLines = try XccovReport.count(container, .executableLines)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case coveredLines, executableLines, targets
    }

    public init(coveredLines: Int, executableLines: Int, targets: [Target]) {
        self.coveredLines = coveredLines
        self.executableLines = executableLines
        self.targets = targets
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        coveredLines = try Self.count(container, .coveredLines)
        executableLines = try Self.count(container, .executableLines)
        targets = try container.decode([Target].self, forKey: .targets)
    }

    /// A line count: a whole number from 0 on, and never more covered than executable is checked by the caller.
    static func count<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Int {
        let value = try container.decode(Int.self, forKey: key)
        guard value >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "a line count cannot be negative (\(value))")
        }
        return value
    }

    /// Decodes the command's standard output.
    ///
    /// - Throws: `XcresultError` naming `xccov` for empty output, text that is not JSON, or another shape.
    public static func decode(_ output: Data) throws -> XccovReport {
        let command = "view --report --json"
        guard output.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw XccovError.emptyOutput
        }
        guard (try? JSONSerialization.jsonObject(with: output, options: [])) is [String: Any] else {
            throw XccovError.notJSON(firstLine: ToolOutput.firstLine(output))
        }
        do {
            return try JSONDecoder().decode(XccovReport.self, from: output)
        } catch {
            let failure = DecodingFailure.describe(error)
            throw XccovError.invalidJSON(command: command, path: failure.path, detail: failure.detail)
        }
    }

    /// The fraction of `covered` in `executable`, 0 when nothing is executable.
    public static func fraction(_ covered: Int, of executable: Int) -> Double {
        executable > 0 ? Double(min(covered, executable)) / Double(executable) : 0
    }
}

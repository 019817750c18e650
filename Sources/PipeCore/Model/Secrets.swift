import Foundation

/// Where a secret's value comes from on the coordinator. The value itself is never written in a pipeline.
public enum SecretSource: Sendable, Equatable {
    /// An environment variable of the `pipe` process.
    case environment(String)
    /// A file (its whole content, one trailing newline dropped); relative to the project folder.
    case file(String)
    /// A binary file read whole (a `.p12`, a provisioning profile), at most `SecretValues.maximumFileBytes`;
    /// relative to the project folder. Never exported as an environment variable: a plugin hands it to the host.
    case binaryFile(String)

    public var description: String {
        switch self {
        case .environment(let name): return "environment variable \(name)"
        case .file(let path): return "file \(path)"
        case .binaryFile(let path): return "binary file \(path)"
        }
    }
}

/// Secret values of one run, by name: kept in memory only, never in a record, an event or a log.
public struct SecretValues: Sendable, Equatable {
    public private(set) var values: [String: String]
    /// Secrets of type `file`: whole binary files, by name.
    public private(set) var files: [String: Data]

    /// A signing `.p12` is a few kilobytes, a provisioning profile tens; anything past this is a wrong file.
    public static let maximumFileBytes = 1 << 20

    public init(_ values: [String: String] = [:], files: [String: Data] = [:]) {
        self.values = values
        self.files = files
    }

    /// Reads every secret the pipeline declares; a missing variable, an unreadable file, an empty value or one
    /// with a line break or a NUL byte is a `RequestError` naming all of them (nothing runs).
    public static func resolve(
        _ sources: [String: SecretSource], environment: [String: String], projectDirectory: URL
    ) throws -> SecretValues {
        var values: [String: String] = [:]
        var files: [String: Data] = [:]
        var problems: [String] = []
        for (name, source) in sources.sorted(by: { $0.key < $1.key }) {
            var value: String?
            func url(_ path: String) -> URL {
                path.hasPrefix("/") ? URL(fileURLWithPath: path) : projectDirectory.appendingPathComponent(path)
            }
            switch source {
            case .binaryFile(let path):
                switch readBinary(url(path)) {
                case .success(let data): files[name] = data
                case .failure(let problem): problems.append("\(name): \(problem.message)")
                }
                continue
            case .environment(let variable):
                value = environment[variable]
                if value == nil { problems.append("\(name): the environment variable \(variable) is not set") }
            case .file(let path):
                let url = url(path)
                if let text = try? String(contentsOf: url, encoding: .utf8) {
                    value = text.hasSuffix("\n") ? String(text.dropLast()) : text
                } else {
                    problems.append("\(name): cannot read the file \(url.path)")
                }
            }
            guard let value else { continue }
            if value.isEmpty {
                problems.append("\(name): the \(source.description) is empty")
            } else if value.contains("\n") || value.contains("\r") {
                problems.append("\(name): the \(source.description) holds a line break; secrets are one line")
            } else if value.unicodeScalars.contains("\u{0}") {
                problems.append(
                    "\(name): the \(source.description) holds a NUL byte, which no environment variable can carry")
            } else {
                values[name] = value
            }
        }
        guard problems.isEmpty else {
            throw RequestError(
                "secrets the pipeline needs are missing:\n  " + problems.joined(separator: "\n  ")
                    + "\nset them on the coordinator (they are never read from the pipeline file)")
        }
        return SecretValues(values, files: files)
    }

    /// A whole file, refused when missing, empty or larger than `maximumFileBytes` (read no further than that).
    private static func readBinary(_ url: URL) -> Result<Data, RequestError> {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            return .failure(RequestError("cannot read the file \(url.path)"))
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumFileBytes + 1) ?? Data() else {
            return .failure(RequestError("cannot read the file \(url.path)"))
        }
        if data.isEmpty { return .failure(RequestError("the binary file \(url.path) is empty")) }
        if data.count > maximumFileBytes {
            return .failure(
                RequestError(
                    "the binary file \(url.path) is larger than \(maximumFileBytes) bytes; is it the right file?"))
        }
        return .success(data)
    }

    /// Only the named secrets (a layer's).
    public func subset(_ names: [String]) -> SecretValues {
        SecretValues(values.filter { names.contains($0.key) }, files: files.filter { names.contains($0.key) })
    }

    public var isEmpty: Bool { values.isEmpty && files.isEmpty }
}

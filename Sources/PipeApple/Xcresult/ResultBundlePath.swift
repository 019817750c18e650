import Foundation
import PipeBasics

/// A result bundle path that is fresh for every run, layer and attempt, because xcodebuild refuses a path that
/// already exists (`Existing file at -resultBundlePath`, exit 64).
///
/// Shape: `<remote run folder>/artifacts/<pipeline>-<layer>-<UTC yyyyMMdd-HHmmss>-<run id>-<attempt>.xcresult`.
/// Each name component is reduced to `A-Z a-z 0-9 . _ -`; a component that had to change gets a short digest of its
/// original text appended, so two different names (`unit tests`, `unit-tests`) never share a path.
public struct ResultBundlePath: Equatable, Sendable, CustomStringConvertible {
    /// `<remote run folder>/artifacts`.
    public let directory: String
    /// `<pipeline>-<layer>-<timestamp>-<run id>-<attempt>.xcresult`.
    public let fileName: String

    /// The full path, for `-resultBundlePath` and for fetching the bundle afterwards.
    public var path: String { directory + "/" + fileName }

    public var description: String { path }

    /// - Parameters:
    ///   - remoteRunFolder: the run's folder on the host (absolute, or relative to the login's home).
    ///   - startTime: when the run (or attempt) started; written in UTC.
    ///   - attempt: 1 for the first attempt.
    /// - Throws: `ResultBundlePathError` for an empty folder or name component, or an attempt below 1.
    public init(
        remoteRunFolder: String, pipeline: String, layer: String, startTime: Date, runID: String, attempt: Int
    ) throws {
        var folder = remoteRunFolder
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        guard !folder.isEmpty else { throw ResultBundlePathError.emptyRunFolder }
        guard !folder.contains("\0"), !folder.contains("\n") else {
            throw ResultBundlePathError.invalidRunFolder(remoteRunFolder)
        }
        guard attempt >= 1 else { throw ResultBundlePathError.invalidAttempt(attempt) }
        let components = try [("pipeline", pipeline), ("layer", layer), ("run id", runID)].map { label, value in
            guard !value.isEmpty else { throw ResultBundlePathError.emptyComponent(label) }
            return Self.safeComponent(value)
        }
        directory = (folder == "/" ? "" : folder) + "/artifacts"
        fileName =
            "\(components[0])-\(components[1])-\(UTCTimestamp.compact(startTime))-\(components[2])-\(attempt).xcresult"
    }

    /// `value` reduced to safe characters; when anything changed, `-` and 8 hex digits of its SHA-256 are appended.
    public static func safeComponent(_ value: String) -> String {
        var output = ""
        var lastWasDash = false
        for scalar in value.unicodeScalars {
            let safe =
                scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == ".")
            if safe || scalar == "-" {
                output.unicodeScalars.append(scalar)
                lastWasDash = scalar == "-"
            } else if !lastWasDash {
                output.append("-")
                lastWasDash = true
            }
        }
        // No leading dot (hidden file, `..`) or dash (option-like), no trailing separator.
        let trimmed = String(
            output.drop { $0 == "-" || $0 == "." }.reversed().drop { $0 == "-" || $0 == "." }.reversed())
        if trimmed == value { return value }
        let digest = String(SHA256Digest.hex(of: Data(value.utf8)).prefix(8))
        return trimmed.isEmpty ? digest : "\(trimmed)-\(digest)"
    }
}

/// A result bundle path cannot be made from these values.
public enum ResultBundlePathError: Error, Equatable, CustomStringConvertible, Sendable {
    case emptyRunFolder
    case invalidRunFolder(String)
    case emptyComponent(String)
    case invalidAttempt(Int)

    public var description: String {
        switch self {
        case .emptyRunFolder:
            return "the remote run folder is empty, so the result bundle would have no place; this is a bug in Pipe"
        case .invalidRunFolder(let folder):
            return "the remote run folder '\(folder)' contains a newline or NUL; choose a plain `work_directory`"
        case .emptyComponent(let label):
            return "the \(label) is empty; a result bundle name needs it to be fresh for every run"
        case .invalidAttempt(let attempt):
            return "attempt \(attempt) is not a valid attempt number (attempts count from 1)"
        }
    }
}

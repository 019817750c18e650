import Foundation

/// A run's identifier: sortable by start time to the second, typeable, unique across processes without a store.
///
/// Within one second the random suffix decides the order, so what must follow start order exactly (`last`,
/// `pipe runs list`) orders by the store's millisecond start time instead.
///
/// Shape: `yyyyMMdd-HHmmss-xxxx` (UTC time, then 4 random hex digits), e.g. `20261129-140312-7f3a`. Uniqueness
/// across processes comes from claiming the run's artifacts folder with an atomic `mkdir` (see `claim`): two
/// processes that draw the same id in the same second cannot both create the folder.
public struct RunID: Hashable, Comparable, CustomStringConvertible, Codable, Sendable {
    public let value: String

    public init?(_ value: String) {
        guard RunID.isWellFormed(value) else { return nil }
        self.value = value
    }

    public var description: String { value }

    public static func < (lhs: RunID, rhs: RunID) -> Bool { lhs.value < rhs.value }

    /// A new id for a run starting at `date`.
    public static func generate(at date: Date = Date()) -> RunID {
        let suffix = String(format: "%04x", UInt16.random(in: 0...UInt16.max))
        return RunID(unchecked: UTCTimestamp.compact(date) + "-" + suffix)
    }

    /// Creates `parent/<id>` atomically for a fresh id and returns both; retries on the rare collision.
    public static func claim(in parent: URL, at date: Date = Date()) throws -> (RunID, URL) {
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        for _ in 0..<64 {
            let id = generate(at: date)
            let folder = parent.appendingPathComponent(id.value, isDirectory: true)
            if mkdir(folder.path, 0o755) == 0 { return (id, folder) }
            if errno != EEXIST {
                throw PipeBasicsError.io(
                    "could not create the run folder \(folder.path): \(String(cString: strerror(errno)))")
            }
        }
        throw PipeBasicsError.io("could not find a free run id under \(parent.path) after 64 tries")
    }

    /// The UTC start time encoded in the id.
    public var startTime: Date? {
        UTCTimestamp.parseCompact(String(value.prefix(15)))
    }

    private init(unchecked value: String) { self.value = value }

    private static func isWellFormed(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 20, bytes[8] == UInt8(ascii: "-"), bytes[15] == UInt8(ascii: "-") else { return false }
        let isDigit = { (b: UInt8) in b >= 48 && b <= 57 }
        let isHex = { (b: UInt8) in isDigit(b) || (b >= 97 && b <= 102) }
        return bytes[0..<8].allSatisfy(isDigit) && bytes[9..<15].allSatisfy(isDigit) && bytes[16..<20].allSatisfy(isHex)
    }

    /// Resolves what a user typed (`last`, a full id, or a unique prefix) against known ids.
    public static func resolve(_ typed: String, among known: [RunID]) -> Result<RunID, RunIDLookupError> {
        let sorted = known.sorted()
        if typed == "last" {
            guard let last = sorted.last else { return .failure(.noRuns) }
            return .success(last)
        }
        let matches = sorted.filter { $0.value.hasPrefix(typed) }
        switch matches.count {
        case 0: return .failure(.notFound(typed))
        case 1: return .success(matches[0])
        default:
            if let exact = matches.first(where: { $0.value == typed }) { return .success(exact) }
            return .failure(.ambiguous(typed, matches))
        }
    }
}

/// Why a typed run id did not name exactly one run.
public enum RunIDLookupError: Error, Equatable, CustomStringConvertible {
    case noRuns
    case notFound(String)
    case ambiguous(String, [RunID])

    public var description: String {
        switch self {
        case .noRuns: return "there are no runs yet; start one with `pipe run <pipeline>`"
        case .notFound(let typed): return "no run id starts with '\(typed)'; `pipe runs list` shows the runs"
        case .ambiguous(let typed, let matches):
            let shown = matches.prefix(5).map(\.value).joined(separator: ", ")
            return "'\(typed)' matches \(matches.count) runs (\(shown)); type more of the id"
        }
    }
}

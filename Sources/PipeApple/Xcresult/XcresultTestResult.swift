/// A test result as `xcresulttool get test-results` spells it: `Passed`, `Failed`, `Skipped`, `Expected Failure`,
/// `unknown` (nothing ran); any other value is kept as `.other` so a newer Xcode never breaks decoding.
public enum XcresultTestResult: Equatable, Sendable, Decodable, CustomStringConvertible {
    case passed
    case failed
    case skipped
    case expectedFailure
    case unknown
    case other(String)

    public init(rawValue: String) {
        switch rawValue {
        case "Passed": self = .passed
        case "Failed": self = .failed
        case "Skipped": self = .skipped
        case "Expected Failure": self = .expectedFailure
        case "unknown": self = .unknown
        default: self = .other(rawValue)
        }
    }

    public init(from decoder: Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public var description: String {
        switch self {
        case .passed: return "Passed"
        case .failed: return "Failed"
        case .skipped: return "Skipped"
        case .expectedFailure: return "Expected Failure"
        case .unknown: return "unknown"
        case .other(let value): return value
        }
    }
}

/// Failures of the small utilities in `PipeBasics`.
public enum PipeBasicsError: Error, CustomStringConvertible {
    case io(String)

    public var description: String {
        switch self {
        case .io(let message): return message
        }
    }
}

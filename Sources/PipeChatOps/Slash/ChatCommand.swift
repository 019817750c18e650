import PipeCore

/// A parsed `/pipe …` command.
public enum ChatCommand: Sendable, Equatable {
    /// `/pipe run <pipeline> [ref=<ref>] [key=value…]`
    case run(pipeline: String, ref: String?, parameters: [KeyValuePair])
    /// `/pipe status [run]` (`nil`: the latest run)
    case status(run: String?)
    /// `/pipe runs [pipeline]`
    case runs(pipeline: String?)
    /// `/pipe signoff <run> <layer> pass|fail field=value… note="…"`
    case signoff(run: String, layer: String, result: SignoffVerdict, fields: [KeyValuePair], note: String?)
    /// `/pipe gate <run> merge|release`
    case gate(run: String, gate: Gate)
    /// `/pipe hosts`
    case hosts
    /// `/pipe approve <forge> <number> [sha]`: a fork's pull request, at its current head
    case approve(forge: String, number: Int, headSHA: String?)
    /// `/pipe help [command]`
    case help(topic: String?)

    /// The command word (`run`, `status`…).
    public var name: String {
        switch self {
        case .run: return "run"
        case .status: return "status"
        case .runs: return "runs"
        case .signoff: return "signoff"
        case .gate: return "gate"
        case .hosts: return "hosts"
        case .approve: return "approve"
        case .help: return "help"
        }
    }
}

/// `key=value` as typed, in order.
public struct KeyValuePair: Sendable, Equatable {
    public var key: String
    public var value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// What a tester says of a manual layer.
public enum SignoffVerdict: String, Sendable, Equatable {
    case pass
    case fail
}

import PipeHTTP

extension WebConfig {
    /// What a reloaded config changes that only a restart applies (where it listens, where it is mounted), as
    /// messages; `self` is the config the page runs with.
    public func restartOnlyChanges(to fresh: WebConfig) -> [String] {
        var changes: [String] = []
        if fresh.listener != listener {
            changes.append(
                "where it listens changed (\(Self.describe(listener)) → \(Self.describe(fresh.listener))): it still "
                    + "listens at \(Self.describe(listener)) until it is restarted")
        }
        if fresh.path != path {
            changes.append(
                "path changed (\(path) → \(fresh.path)): the page stays at \(path) until it is restarted")
        }
        return changes
    }

    /// `fresh` with what only a restart changes kept as in `self`: the rest applies in place.
    public func keepingRestartOnly(_ fresh: WebConfig) -> WebConfig {
        var applied = fresh
        applied.listener = listener
        applied.path = path
        return applied
    }

    static func describe(_ listener: HTTPListener) -> String {
        switch listener {
        case .tcp(let address, let port): return "\(address):\(port)"
        case .unixSocket(let path): return "unix:\(path)"
        }
    }
}

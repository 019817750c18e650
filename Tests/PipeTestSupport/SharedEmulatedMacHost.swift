import Foundation

/// One emulated Mac host for all the tests of a class, started when the first test asks for it and stopped (its
/// state folder removed) by the class's `tearDown()`. Starting an sshd costs about a second: once per class, not per
/// test.
public final class SharedEmulatedMacHost: @unchecked Sendable {
    private let name: String
    private let prefix: String
    private let lock = NSLock()
    private var started: Result<(host: EmulatedMacHost, state: TemporaryDirectory), Error>?

    public init(name: String, statePrefix: String) {
        self.name = name
        self.prefix = statePrefix
    }

    /// The host, started on the first call; a failure to start is remembered and thrown again.
    public func get() throws -> EmulatedMacHost {
        try lock.withLock {
            if started == nil {
                started = Result {
                    let state = try TemporaryDirectory(prefix: prefix)
                    do {
                        return (try EmulatedMacHost(name: name, stateDirectory: state.url), state)
                    } catch {
                        state.remove()
                        throw error
                    }
                }
            }
            return try started!.get().host
        }
    }

    /// Stops the host if it was started and removes its state.
    public func stop() {
        lock.withLock {
            if case .success(let (host, state)) = started {
                host.stop()
                state.remove()
            }
            started = nil
        }
    }
}

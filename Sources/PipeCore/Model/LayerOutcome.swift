/// How one verification layer ended: the one outcome vocabulary of the whole project.
///
/// The raw values are what the run record, the JSON output and the store hold: never rename them.
public enum LayerOutcome: String, Codable, CaseIterable, Sendable {
    case passed
    /// Failed with test failures on one attempt and passed on a later one made by the test-retry policy.
    case flaky
    case testsFailed = "tests-failed"
    case buildFailed = "build-failed"
    /// The layer's own timeout ran out; blocks the gate like a failure, reported apart from it.
    case timedOut = "timed-out"
    /// The host is not set up for this request: scheme missing or not shared, no matching destination, scheme
    /// without a test action, result path exists. Never reported as a failure of the app.
    case hostConfig = "host-config"
    /// Host unreachable, host key, authentication, connection dropped, simulator boot, disk full.
    case infrastructure
    case pluginError = "plugin-error"
    /// A layer it needs did not pass.
    case skipped
    case cancelled
    case awaitingSignoff = "awaiting-signoff"
    case signedOff = "signed-off"
    case rejected

    /// An app failure: the code under test was shown to be wrong (build or tests), or ran past its time.
    public var isAppFailure: Bool {
        switch self {
        case .testsFailed, .buildFailed, .timedOut: return true
        default: return false
        }
    }

    /// The run could not judge the app: the fault is in the setup, the host or the plugin.
    public var isEnvironmentFailure: Bool {
        switch self {
        case .hostConfig, .infrastructure, .pluginError: return true
        default: return false
        }
    }

}

/// The life of a whole run.
public enum RunStatus: String, Codable, CaseIterable, Sendable {
    case queued
    case running
    case finished
    case cancelled
    /// The coordinator died while the run was running; found and marked on the next start.
    case interrupted
}

/// Which gate a layer belongs to.
public enum Gate: String, Codable, CaseIterable, Sendable {
    /// Blocks a merge: the automated layers.
    case merge
    /// Must be signed before a release: the manual checklists.
    case release
}

/// Whether a layer that passed only on a retry passes the merge gate.
public enum FlakyPolicy: String, Codable, Sendable {
    case allow
    case block
}

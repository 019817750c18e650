/// How many more attempts a layer gets after each kind of failure.
///
/// Defaults (a pipeline that says nothing): an `infrastructure` failure is retried once, on another simulator or
/// host where there is one; `timed-out` and test failures are not retried. When `tests` is above zero, a layer
/// that failed its tests and passed on a retry is `flaky`, never `passed`. Build failures, host configuration and
/// plugin errors are never retried: another attempt would fail the same way.
public struct RetryPolicy: Sendable, Equatable, Codable {
    /// The most retries any policy may ask for: a retry loop must stay bounded.
    public static let maximumRetries = 5

    public var infrastructure: Int
    public var timedOut: Int
    public var tests: Int
    /// Seconds before the first retry; each later retry waits twice as long.
    public var backoffSeconds: Double

    public init(infrastructure: Int = 1, timedOut: Int = 0, tests: Int = 0, backoffSeconds: Double = 2) {
        self.infrastructure = infrastructure
        self.timedOut = timedOut
        self.tests = tests
        self.backoffSeconds = backoffSeconds
    }

    /// Retries allowed after an attempt ended with `outcome`.
    public func retries(after outcome: LayerOutcome) -> Int {
        switch outcome {
        case .infrastructure: return infrastructure
        case .timedOut: return timedOut
        case .testsFailed: return tests
        default: return 0
        }
    }

    /// The wait before retry number `retry` (1 for the first).
    public func backoff(beforeRetry retry: Int) -> Double {
        backoffSeconds * Double(1 << max(0, min(retry - 1, 6)))
    }

    /// The outcome of a layer over all its attempts: the last attempt decides, except that tests which failed
    /// and then passed on a test retry are `flaky`.
    public static func finalOutcome(of attempts: [LayerOutcome]) -> LayerOutcome? {
        guard let last = attempts.last else { return nil }
        if last == .passed, attempts.dropLast().contains(.testsFailed) { return .flaky }
        return last
    }
}

/// A policy as a pipeline or layer writes it: only the fields it sets, layered over the defaults.
public struct RetryOverrides: Sendable, Equatable {
    public var infrastructure: Int?
    public var timedOut: Int?
    public var tests: Int?
    public var backoffSeconds: Double?

    public init(infrastructure: Int? = nil, timedOut: Int? = nil, tests: Int? = nil, backoffSeconds: Double? = nil) {
        self.infrastructure = infrastructure
        self.timedOut = timedOut
        self.tests = tests
        self.backoffSeconds = backoffSeconds
    }

    /// `self` over `base`: a field this sets wins.
    public func applied(to base: RetryPolicy) -> RetryPolicy {
        RetryPolicy(
            infrastructure: infrastructure ?? base.infrastructure, timedOut: timedOut ?? base.timedOut,
            tests: tests ?? base.tests, backoffSeconds: backoffSeconds ?? base.backoffSeconds)
    }
}

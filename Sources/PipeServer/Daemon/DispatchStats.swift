import Foundation

/// The cost of the controller's scheduling decisions, for `bench/controller` and for anyone reading the log.
///
/// A decision is one look at a non-empty queue: read the waiting runs, the hosts and their leases, plan, and claim
/// and start what the plan allows (the runs started are the plan's starts) (starting a run's thread, not running it). The controller logs a `dispatch-stats`
/// notice every `every` decisions and once when it stops, with the count, total and longest time in microseconds
/// since it started. Measuring is two monotonic clock reads per decision.
struct DispatchStats {
    /// How many decisions between two notices.
    static let every = 100

    private(set) var decisions = 0
    private(set) var runsStarted = 0
    private(set) var totalMicroseconds: UInt64 = 0
    private(set) var maxMicroseconds: UInt64 = 0

    /// Adds one decision; true when a notice is due.
    mutating func record(nanoseconds: UInt64, started: Int) -> Bool {
        let microseconds = nanoseconds / 1000
        decisions += 1
        runsStarted += started
        totalMicroseconds += microseconds
        maxMicroseconds = max(maxMicroseconds, microseconds)
        return decisions % Self.every == 0
    }

    var notice: ControllerNotice {
        let mean = decisions == 0 ? 0 : totalMicroseconds / UInt64(decisions)
        return ControllerNotice(
            "dispatch-stats",
            "dispatch-stats: \(decisions) scheduling decisions, \(runsStarted) runs started, "
                + "total \(totalMicroseconds) µs, mean \(mean) µs, max \(maxMicroseconds) µs",
            fields: [
                "count": "\(decisions)", "runs-started": "\(runsStarted)", "total-us": "\(totalMicroseconds)",
                "mean-us": "\(mean)", "max-us": "\(maxMicroseconds)",
            ])
    }
}

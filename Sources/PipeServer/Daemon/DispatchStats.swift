import Foundation

/// The cost of the controller's scheduling decisions, for `bench/controller` and for anyone reading the log.
///
/// A decision is one look at a non-empty queue: read the waiting runs, the hosts and their leases, plan, and claim
/// and start what the plan allows (claiming the queue item, preparing the request, starting the run's thread; not
/// running it). The launches are also timed on their own, so the log tells planning from claiming. The controller
/// logs a `dispatch-stats` notice every `every` decisions and once when it stops, with counts and microseconds
/// since it started. Measuring is six clock reads per decision.
///
/// Two times per decision: the wall-clock time (what a queued run waits for the decision; on a busy machine it
/// includes waiting for a core and for the run store's lock, which the controller shares with its running runs) and
/// the CPU time of the controller's thread during the pass (the work the decision itself costs).
struct DispatchStats {
    /// How many decisions between two notices.
    static let every = 100

    private(set) var decisions = 0
    private(set) var runsStarted = 0
    private(set) var totalMicroseconds: UInt64 = 0
    private(set) var maxMicroseconds: UInt64 = 0
    private(set) var cpuMicroseconds: UInt64 = 0
    private(set) var launchMicroseconds: UInt64 = 0
    /// Decisions counted by wall-clock time in steps of `step` µs, the last bucket holding all longer ones: a
    /// percentile in fixed memory, exact to a step below the last bucket.
    private var histogram = [Int](repeating: 0, count: Self.buckets)
    static let step: UInt64 = 100
    static let buckets = 1_000

    /// Adds one decision that took `nanoseconds`, of which `launchNanoseconds` went to starting `started` runs;
    /// true when a notice is due.
    mutating func record(nanoseconds: UInt64, cpuNanoseconds: UInt64, started: Int, launchNanoseconds: UInt64) -> Bool {
        let microseconds = nanoseconds / 1000
        decisions += 1
        cpuMicroseconds += cpuNanoseconds / 1000
        runsStarted += started
        totalMicroseconds += microseconds
        maxMicroseconds = max(maxMicroseconds, microseconds)
        launchMicroseconds += launchNanoseconds / 1000
        histogram[Int(min(microseconds / Self.step, UInt64(Self.buckets - 1)))] += 1
        return decisions % Self.every == 0
    }

    /// The wall-clock time within which `fraction` of the decisions were made, rounded up to a step, in µs.
    func percentileMicroseconds(_ fraction: Double) -> UInt64 {
        guard decisions > 0 else { return 0 }
        let wanted = Int((Double(decisions) * fraction).rounded(.up))
        var seen = 0
        for (index, count) in histogram.enumerated() {
            seen += count
            if seen >= wanted { return index == Self.buckets - 1 ? maxMicroseconds : UInt64(index + 1) * Self.step }
        }
        return maxMicroseconds
    }

    var notice: ControllerNotice {
        let mean = decisions == 0 ? 0 : totalMicroseconds / UInt64(decisions)
        let planMean =
            decisions == 0 ? 0 : (totalMicroseconds - min(launchMicroseconds, totalMicroseconds)) / UInt64(decisions)
        let launchMean = runsStarted == 0 ? 0 : launchMicroseconds / UInt64(runsStarted)
        let cpuMean = decisions == 0 ? 0 : cpuMicroseconds / UInt64(decisions)
        let p99 = percentileMicroseconds(0.99)
        return ControllerNotice(
            "dispatch-stats",
            "dispatch-stats: \(decisions) scheduling decisions, \(runsStarted) runs started, "
                + "total \(totalMicroseconds) µs, mean \(mean) µs, p99 \(p99) µs, max \(maxMicroseconds) µs; "
                + "planning mean \(planMean) µs per decision, launch mean \(launchMean) µs per run started; "
                + "CPU mean \(cpuMean) µs per decision",
            fields: [
                "count": "\(decisions)", "runs-started": "\(runsStarted)", "total-us": "\(totalMicroseconds)",
                "mean-us": "\(mean)", "p99-us": "\(p99)", "max-us": "\(maxMicroseconds)", "plan-mean-us": "\(planMean)",
                "launch-mean-us": "\(launchMean)", "cpu-mean-us": "\(cpuMean)",
            ])
    }

    /// The CPU time the calling thread has used, in nanoseconds.
    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

import Foundation
import PipeCore

/// The scheduled CI controller: fires schedules, watches branches, and runs the queue within the limits and the
/// hosts' capacity, until it is told to stop.
///
/// Life: `start()` takes the store's controller lock (a second controller refuses to start), settles what a
/// controller killed earlier left (its running runs are marked interrupted and requeued once; items it had taken
/// but not started go back to the queue), then `run()` loops on the calling thread until `requestStop`. Each run
/// runs on a thread of its own. A stop takes no new runs, lets running ones go on for the grace period, then
/// cancels them (the engine kills their remote processes and keeps their artifacts) and returns when all have
/// ended. `requestReload()` (SIGHUP) reads the config again and keeps the old one when the new one is invalid.
public final class Controller: @unchecked Sendable {
    /// What the controller keeps in the run store.
    public typealias Store = RunQueue & RunStore & HostLeaseStore

    /// The scheduling loop's connection: only the loop (and the status and chat requests answered beside it) uses it.
    private let store: Store
    /// The connection a run thread records its run's end through (the runs' own connection, see `init`).
    private let runThreadStore: RunQueue
    private let storePath: String
    private let executor: QueuedRunExecutor
    private let log: ControllerLog
    private let owner: RunOwner
    private let clock: () -> Date
    /// How often the loop looks at schedules and the queue.
    public var tickSeconds: Double = 0.25
    /// How often a scheduling pass also removes the leases of dead processes and ended runs (a write transaction):
    /// this controller's runs give theirs back themselves, so only other processes' leftovers wait that long.
    public var leaseRecoverySeconds: Double = 5
    /// On a store several controllers serve, how often this one looks for the runs and claims of a controller that
    /// died, and settles them as a restart would (interrupted, queued again once).
    public var peerRecoverySeconds: Double = 2
    /// The list of controllers of a store that admits several: this controller renews its heartbeat there before
    /// each recovery pass, and judges owners on other machines by theirs.
    public var registry: ControllerRegistry?
    /// A heartbeat older than this is a dead controller's.
    public var heartbeatTimeoutSeconds: Double = Controller.defaultHeartbeatTimeoutSeconds
    /// How long a controller's heartbeat stays fresh: it renews it every 2 s.
    public static let defaultHeartbeatTimeoutSeconds: Double = 10
    private var lastPeerRecovery = Date.distantPast
    /// After this controller's own heartbeat was found stale, no other controller is judged until then.
    private var judgeOthersAfter = Date.distantPast
    /// Runs reported as left running under another process, so a recovery pass every few seconds says it once.
    private var reportedLeftRunning: Set<String> = []
    /// How much lower than the loop's the run threads' scheduling priority is (`nice`, which Linux keeps per thread,
    /// and which the processes a run starts inherit): on a busy coordinator the decisions come before the work of
    /// the runs already started, so a queued run does not wait for a core behind fifty others. 0 keeps them equal.
    /// A `nice` value only shares out a core that is wanted twice: on a coordinator with cores to spare the runs go
    /// as fast at 19 as at 0. Measured with 50 emulated hosts on 2 cores, the loop's pass took 21 ms of wall clock
    /// with the runs at +5 and 10 ms at +19 (1.2 ms of CPU either way), with as many runs completed per minute.
    public var runThreadNiceness: Int32 = 19
    /// Starts the run threads at `runThreadNiceness`, off the scheduling loop; made by the loop at its first launch
    /// (so a niceness set before `run()` applies) and used only by the loop.
    private var runThreads: RunThreadStarter?
    /// Reads the config file again (SIGHUP); throws its problems.
    public var reloadConfig: (() throws -> ControllerConfig)?
    /// Told of a config reloaded and applied, for settings the command line applies itself (`session-idle`).
    public var reloadApplied: ((ControllerConfig) -> Void)?

    private let lock = NSLock()
    private var config: ControllerConfig
    private var startedAt: Date
    private var active: [String: ActiveRun] = [:]
    private var stop: (at: Date, reason: String)?
    private var cancelled = false
    private var reloadRequested = false
    private var scheduleStates: [String: ScheduleState] = [:]
    /// When each schedule next needs a look: its next slot.
    private var nextDue: [String: Date] = [:]
    private var watcher: WatchPoller?
    /// The last hold reported per run, so a run waiting for a host is logged once, not every tick.
    private var reportedHolds: [String: DispatchPlanner.Hold] = [:]
    private var holding = false
    private var hostsProblem: String?
    /// The time the scheduling decisions take (only the loop's thread touches it).
    private var dispatchStats = DispatchStats()
    /// When leases were last recovered (only the loop's thread touches it).
    private var leasesRecoveredAt: Date?

    private struct ActiveRun {
        var pipeline: String
        var host: String
        var token: CancellationToken
        var startedAt: Date
    }

    /// `runThreadStore` is the connection the run threads write through (their records, their end in the queue); by
    /// default `store`. Give them one of their own: a connection serializes its callers, and a scheduling pass must
    /// not wait for it behind a run thread, which runs at a lower priority (`runThreadNiceness`).
    public init(
        config: ControllerConfig, store: Store, storePath: String, executor: QueuedRunExecutor, log: ControllerLog,
        owner: RunOwner = .current(), runThreadStore: RunQueue? = nil, clock: @escaping () -> Date = Date.init
    ) {
        self.config = config
        self.store = store
        self.runThreadStore = runThreadStore ?? store
        self.storePath = storePath
        self.executor = executor
        self.log = log
        self.owner = owner
        self.clock = clock
        self.startedAt = clock()
    }

    // MARK: - Starting

    /// Takes the lock (unless the store admits several controllers) and settles what an earlier controller left;
    /// throws `ControllerError.alreadyRunning` when another controller holds the store.
    public func start() throws {
        startedAt = clock()
        if store.admitsSeveralControllers {
            try startServing()
            return
        }
        switch try store.acquireControllerLock(
            owner: owner, configPath: config.file, at: startedAt, isOwnerAlive: { $0.liveness() })
        {
        case .held(let holder, let liveness):
            throw ControllerError.alreadyRunning(holder, liveness: liveness, store: storePath)
        case .acquired(let previous):
            if let previous {
                log.notice(
                    ControllerNotice(
                        "lock-recovered",
                        "the controller lock was held by \(previous.owner.description), which is gone; taken over"))
            }
        }
        do {
            try startServing()
        } catch {
            _ = try? store.releaseControllerLock(owner: owner)
            throw error
        }
    }

    /// Settles what earlier controllers left, loads the schedules and starts the watches.
    private func startServing() throws {
        try registry?.heartbeat(owner: owner, configPath: config.file)
        try recover()
        try loadSchedules(config.schedules)
        let watcher = try WatchPoller(
            watches: config.watches, store: store, executor: executor, log: log, clock: clock)
        self.watcher = watcher
        watcher.start()
        log.notice(
            ControllerNotice(
                "started",
                "controller \(owner.description) started with \(config.file): \(describe(config)); store \(storePath)",
                fields: ["config": config.file, "pid": String(owner.pid)]))
    }

    /// Runs that were running when an earlier controller died are interrupted (the store marks them) and run again
    /// once; items it took but never started go back in their place.
    private func recover() throws {
        let members = try registry?.controllers()
        let timeout = heartbeatTimeoutSeconds
        let judge: (RunOwner) -> RunOwner.Liveness = { owner in
            members?.liveness(of: owner, heartbeatTimeout: timeout) ?? owner.liveness()
        }
        try stopRemoteWorkOfDeadRuns(judge: judge)
        // Their work on the hosts was stopped just above, so their slots may go to the next run now.
        for interrupted in try store.markInterruptedRuns(at: clock(), isOwnerAlive: judge) {
            _ = try store.releaseLeases(runID: interrupted.runID)
        }
        defer {
            // A dead controller whose runs are settled leaves the list.
            for member in members ?? [] where member.owner != owner && judge(member.owner) == .dead {
                try? registry?.leave(owner: member.owner)
            }
        }
        for item in try store.queueItems(states: [.claimed], limit: 100_000) where item.claimedBy != owner {
            // Beside other controllers, only a dead one's claims are settled: a live one may be starting that run.
            if store.admitsSeveralControllers, item.claimedBy.map(judge) != .dead { continue }
            guard let run = try store.run(item.runID) else {
                try store.releaseClaim(runID: item.runID)
                log.notice(
                    ControllerNotice(
                        "requeued",
                        "run \(item.runID) (\(item.request.pipeline)) was taken by a controller that stopped before "
                            + "starting it; back in the queue",
                        runID: item.runID))
                continue
            }
            switch run.record.status {
            case .interrupted:
                let problem = run.record.problem ?? "its controller stopped while it was running"
                if let copy = try store.requeueInterrupted(runID: item.runID, problem: problem, at: clock()) {
                    log.notice(
                        ControllerNotice(
                            "requeued",
                            "run \(item.runID) (\(item.request.pipeline)) was interrupted when its controller "
                                + "(\(item.claimedBy?.description ?? "unknown")) died; queued again once as run "
                                + "\(copy.runID)",
                            runID: copy.runID, fields: ["interrupted": item.runID]))
                } else {
                    log.notice(
                        ControllerNotice(
                            "not-requeued",
                            "run \(item.runID) (\(item.request.pipeline)) was interrupted again; it was already "
                                + "requeued once (it reran \(item.requeueOf ?? "an interrupted run")), so it is not "
                                + "queued a third time",
                            runID: item.runID, isProblem: true))
                }
            case .finished, .cancelled:
                try store.finish(runID: item.runID, state: .finished, problem: nil, at: clock())
            case .queued, .running:
                // A run whose owner this machine cannot judge (another host): left as it is.
                guard reportedLeftRunning.insert(item.runID).inserted else { continue }
                log.notice(
                    ControllerNotice(
                        "left-running",
                        "run \(item.runID) is still running under \(run.owner?.description ?? "another process"); left "
                            + "alone",
                        runID: item.runID, isProblem: true))
            }
        }
    }

    /// A dead owner's runs still run on their hosts (a coordinator killed with -9 stops nothing there): their
    /// process groups are stopped first, so that no slot is given out while its work goes on.
    private func stopRemoteWorkOfDeadRuns(judge: (RunOwner) -> RunOwner.Liveness) throws {
        for (runID, owner) in try store.runningRunOwners() where owner != self.owner && judge(owner) == .dead {
            guard let run = try store.run(runID), run.record.status == .running,
                let stopped = executor.stopRemoteWork(of: run)
            else { continue }
            log.notice(
                ControllerNotice(
                    "remote-work-stopped", "run \(runID) of \(owner.description), which is gone: \(stopped.message)",
                    runID: runID, isProblem: stopped.isProblem))
        }
    }

    private func loadSchedules(_ schedules: [ScheduleConfig]) throws {
        var states: [String: ScheduleState] = [:]
        for schedule in schedules {
            states[schedule.name] = try store.scheduleState(name: schedule.name, baseline: clock())
        }
        lock.lock()
        scheduleStates = states
        nextDue = [:]
        lock.unlock()
    }

    /// Another controller's death is found by the ones still running, not only by the next to start.
    private func recoverPeers(_ now: Date) {
        guard store.admitsSeveralControllers, now.timeIntervalSince(lastPeerRecovery) >= peerRecoverySeconds else {
            return
        }
        lastPeerRecovery = now
        do {
            if let registry {
                let own = try registry.controllers().first {
                    $0.owner.hostname == owner.hostname && $0.owner.pid == owner.pid
                }
                // Off the list: the others judged this controller dead and gave its runs away (the fence).
                if own == nil { fence() }
                // Its own heartbeat first. One that had gone stale means the store (or this process) was away, and
                // so were the others' heartbeats: they get one timeout to renew before anyone is judged.
                try registry.heartbeat(owner: owner, configPath: config.file)
                if let own, own.heartbeatAge >= heartbeatTimeoutSeconds {
                    judgeOthersAfter = now.addingTimeInterval(heartbeatTimeoutSeconds)
                }
                if now < judgeOthersAfter { return }
            }
            try recover()
        } catch {
            log.notice(
                ControllerNotice(
                    "recovery-failed", "could not look for the runs of stopped controllers: \(error)",
                    isProblem: true))
        }
    }

    // MARK: - Signals

    /// Stops taking runs; running ones get the grace period, then are cancelled. A second request cancels them at
    /// once.
    public func requestStop(reason: String) {
        lock.lock()
        let first = stop == nil
        if first { stop = (clock(), reason) }
        let running = active.count
        let grace = config.gracePeriodSeconds
        let tokens = first ? [] : active.values.map(\.token)
        if !first { cancelled = true }
        lock.unlock()
        if first {
            log.notice(
                ControllerNotice(
                    "stopping",
                    "\(reason): taking no new runs; \(running) running run\(running == 1 ? "" : "s") may finish within "
                        + "the grace period of \(Self.seconds(grace)), then \(running == 1 ? "it is" : "they are") "
                        + "cancelled"))
        } else {
            log.notice(ControllerNotice("cancelling", "\(reason) again: cancelling the running runs now"))
            for token in tokens { token.cancel(reason: "cancelled: the controller is stopping (\(reason), twice)") }
        }
    }

    /// Reads the config again at the next tick (SIGHUP).
    public func requestReload() {
        lock.lock()
        reloadRequested = true
        lock.unlock()
    }

    // MARK: - The loop

    /// Loops until a stop has let every run end; then gives the lock back.
    public func run() {
        while true {
            let now = clock()
            lock.lock()
            let reload = reloadRequested
            reloadRequested = false
            let stopping = stop
            let running = active.count
            let grace = config.gracePeriodSeconds
            lock.unlock()
            if reload { applyReload() }
            if let stopping {
                if running == 0 { break }
                if now >= stopping.at.addingTimeInterval(grace) { cancelAll(after: grace, reason: stopping.reason) }
            } else {
                recoverPeers(now)
                fireSchedules(now)
                let began = DispatchTime.now().uptimeNanoseconds
                let beganCPU = DispatchStats.threadCPUNanoseconds()
                if let pass = dispatch(now),
                    dispatchStats.record(
                        nanoseconds: DispatchTime.now().uptimeNanoseconds - began,
                        cpuNanoseconds: DispatchStats.threadCPUNanoseconds() - beganCPU, started: pass.started,
                        launchNanoseconds: pass.launchNanoseconds)
                {
                    log.notice(dispatchStats.notice)
                }
            }
            Thread.sleep(forTimeInterval: tickSeconds)
        }
        watcher?.stop()
        if dispatchStats.decisions > 0 { log.notice(dispatchStats.notice) }
        _ = try? store.releaseControllerLock(owner: owner)
        try? registry?.leave(owner: owner)
        log.notice(ControllerNotice("stopped", "controller stopped: every run has ended; lock released"))
    }

    /// This controller was taken off the list: its runs may already run again elsewhere, and the Mac knows nothing of
    /// fences, so every run it has is cancelled now (which stops the run's remote process group).
    private func fence() {
        lock.lock()
        let runs = active
        lock.unlock()
        log.notice(
            ControllerNotice(
                "fenced",
                "this controller is no longer on the store's list of controllers (the others judged it dead): "
                    + "cancelling its \(runs.count) running run\(runs.count == 1 ? "" : "s") "
                    + "(\(runs.keys.sorted().joined(separator: ", "))) and joining again",
                isProblem: true))
        for (_, run) in runs {
            run.token.cancel(
                reason: "cancelled: this controller was fenced (the others found its heartbeat stale); the run may "
                    + "have been queued again elsewhere")
        }
    }

    private func cancelAll(after grace: Double, reason: String) {
        lock.lock()
        guard !cancelled else {
            lock.unlock()
            return
        }
        cancelled = true
        let runs = active
        lock.unlock()
        log.notice(
            ControllerNotice(
                "cancelling",
                "the grace period of \(Self.seconds(grace)) is over: cancelling \(runs.count) running run"
                    + "\(runs.count == 1 ? "" : "s") (\(runs.keys.sorted().joined(separator: ", ")))"))
        for (_, run) in runs {
            run.token.cancel(reason: "cancelled: the controller is stopping (\(reason)) and the grace period ended")
        }
    }

    private func applyReload() {
        guard let reloadConfig else { return }
        do {
            let fresh = try reloadConfig()
            try loadSchedules(fresh.schedules)
            lock.lock()
            config = fresh
            lock.unlock()
            watcher?.update(fresh.watches)
            reloadApplied?(fresh)
            log.notice(ControllerNotice("reloaded", "reloaded \(fresh.file): \(describe(fresh))"))
        } catch {
            lock.lock()
            let current = config
            lock.unlock()
            log.notice(
                ControllerNotice(
                    "reload-refused",
                    "SIGHUP: \(current.file) is invalid now; keeping the config loaded before "
                        + "(\(describe(current))). Its problems:\n\(error)",
                    isProblem: true))
        }
    }

    // MARK: - Schedules

    private func fireSchedules(_ now: Date) {
        lock.lock()
        let schedules = config.schedules
        let states = scheduleStates
        let started = startedAt
        lock.unlock()
        for schedule in schedules {
            guard let state = states[schedule.name] else { continue }
            lock.lock()
            let due = nextDue[schedule.name]
            lock.unlock()
            if let due, now < due { continue }
            let decision = ScheduleEvaluator.decide(
                timing: schedule.timing, policy: schedule.missed, state: state, controllerStartedAt: started, now: now)
            let slot: Date
            var request: QueueRequest?
            switch decision {
            case .wait(let next):
                // Nothing to look at before the next slot (or ever, for a schedule that cannot fire again).
                lock.lock()
                nextDue[schedule.name] = next ?? .distantFuture
                lock.unlock()
                continue
            case .fire(let at, _):
                slot = at
                request = QueueRequest(
                    pipeline: schedule.pipeline, ref: schedule.ref, parameters: schedule.parameters, source: .schedule,
                    requestedBy: "schedule \(schedule.name)",
                    reason: "schedule \(schedule.name) (\(schedule.timing)), slot \(Self.iso(at))",
                    triggerKey: "schedule:\(schedule.name):\(Self.iso(at))")
            case .skipMissed(let latest, _): slot = latest
            }
            do {
                guard
                    let recorded = try store.recordScheduleSlot(
                        name: schedule.name, slot: slot, enqueue: request, at: now)
                else {
                    // Recorded meanwhile (another life of this controller): take the store's word.
                    if let fresh = try store.scheduleStates().first(where: { $0.name == schedule.name }) {
                        lock.lock()
                        scheduleStates[schedule.name] = fresh
                        lock.unlock()
                    }
                    continue
                }
                lock.lock()
                scheduleStates[schedule.name] = recorded
                lock.unlock()
                log.notice(notice(for: decision, schedule: schedule, runID: recorded.lastRunID))
            } catch {
                log.notice(
                    ControllerNotice(
                        "problem", "schedule \(schedule.name): could not record slot \(Self.iso(slot)): \(error)",
                        isProblem: true))
            }
        }
    }

    private func notice(for decision: ScheduleDecision, schedule: ScheduleConfig, runID: String?) -> ControllerNotice {
        let fields = ["schedule": schedule.name, "pipeline": schedule.pipeline]
        switch decision {
        case .fire(let slot, let folded):
            var message =
                "schedule \(schedule.name): slot \(Self.iso(slot)) fired: queued run \(runID ?? "?") of "
                + schedule.pipeline
            if folded > 0 {
                message +=
                    " (it stands for \(folded) earlier slot\(folded == 1 ? "" : "s") missed while no controller "
                    + "ran: missed: once)"
            }
            return ControllerNotice(
                "schedule-fired", message, runID: runID, fields: fields.merging(["slot": Self.iso(slot)]) { $1 })
        case .skipMissed(let latest, let count):
            return ControllerNotice(
                "schedule-skipped",
                "schedule \(schedule.name): \(count) slot\(count == 1 ? "" : "s") up to \(Self.iso(latest)) passed "
                    + "while no controller ran; skipped (missed: skip)",
                fields: fields.merging(["slot": Self.iso(latest)]) { $1 })
        case .wait:
            return ControllerNotice("schedule-waiting", "schedule \(schedule.name) waits", fields: fields)
        }
    }

    // MARK: - The queue

    /// One scheduling decision; returns how many runs it started and the time their launches took, or nil when the
    /// queue was empty (no decision) or could not be read.
    ///
    /// The pass plans with the run id and pipeline of up to 500 waiting items; it reads whole items only for the
    /// first of each pipeline (its parameters choose among the hosts) and for those it starts.
    private func dispatch(_ now: Date) -> (started: Int, launchNanoseconds: UInt64)? {
        let waiting: [(runID: String, pipeline: String)]
        do {
            waiting = try store.waitingPipelines(limit: 500)
        } catch {
            log.notice(ControllerNotice("problem", "could not read the queue: \(error)", isProblem: true))
            return nil
        }
        guard !waiting.isEmpty else { return nil }
        lock.lock()
        let limits = config.limits
        let runs = active
        lock.unlock()

        var hostsOfPipeline: [String: [String]] = [:]
        var capacity: [String: Int] = [:]
        var firstOfPipeline: [String: String] = [:]
        for item in waiting where firstOfPipeline[item.pipeline] == nil { firstOfPipeline[item.pipeline] = item.runID }
        for (name, firstID) in firstOfPipeline {
            let first: QueuedRun?
            do {
                first = try store.queuedRun(firstID)
            } catch {
                log.notice(ControllerNotice("problem", "could not read the queue: \(error)", isProblem: true))
                return nil
            }
            // Taken or cancelled since: the pipeline waits for the next pass.
            guard let first, first.state == .queued else { continue }
            do {
                let hosts = try executor.hosts(for: first)
                hostsOfPipeline[name] = hosts.map(\.name)
                for host in hosts { capacity[host.name] = host.capacity }
            } catch let error as HostsUnavailable {
                // The coordinator's problem, not the requests': they wait until the hosts file is fixed.
                reportHostsProblem(error)
                return (0, 0)
            } catch {
                // The pipeline cannot run at all: its queued runs fail now, with the reason, rather than wait.
                for head in waiting where head.pipeline == name {
                    if let item = try? store.queuedRun(head.runID) { fail(item, problem: "\(error)") }
                }
            }
        }
        let free: [String: Int]
        do {
            free = try freeSlots(capacity: capacity, runs: runs, now: now)
        } catch {
            log.notice(ControllerNotice("problem", "could not read the host leases: \(error)", isProblem: true))
            return (0, 0)
        }
        lock.lock()
        hostsProblem = nil
        lock.unlock()
        let planner = DispatchPlanner(limits: limits)
        let candidates = waiting.filter { hostsOfPipeline[$0.pipeline] != nil }
        let plan = planner.plan(
            waiting: candidates.map { .init(runID: $0.runID, pipeline: $0.pipeline) },
            running: Dictionary(grouping: runs.values, by: \.pipeline).mapValues(\.count), freeSlots: free,
            hostsOfPipeline: hostsOfPipeline)
        reportHolds(plan.holds, waiting: candidates.map(\.runID))
        let launching = DispatchTime.now().uptimeNanoseconds
        let started = launch(plan.starts)
        return (started, DispatchTime.now().uptimeNanoseconds - launching)
    }

    /// Free slots per host: capacity, minus the slots leased in the store (by any process), minus this controller's
    /// runs that have not leased their slot yet; hosts out of rotation have none.
    private func freeSlots(capacity: [String: Int], runs: [String: ActiveRun], now: Date) throws -> [String: Int] {
        if leasesRecoveredAt.map({ now.timeIntervalSince($0) >= leaseRecoverySeconds || now < $0 }) ?? true {
            _ = try store.recoverLeases(isOwnerAlive: { $0.liveness() })
            leasesRecoveredAt = now
        }
        let leases = try store.activeLeases(host: nil).filter { $0.kind == .hostSlot }
        let health = try store.hostHealth(Array(capacity.keys))
        var free: [String: Int] = [:]
        for (host, slots) in capacity {
            let usable = health.first { $0.host == host }?.isInRotation ?? true
            free[host] = usable ? slots - leases.filter { $0.host == host }.count : 0
        }
        let leasedRuns = Set(leases.map(\.runID))
        for (runID, run) in runs where !leasedRuns.contains(runID) {
            free[run.host, default: 0] -= 1
        }
        return free
    }

    /// Logs a hosts-file problem once until it changes or is fixed.
    private func reportHostsProblem(_ error: HostsUnavailable) {
        lock.lock()
        let repeated = hostsProblem == error.message
        hostsProblem = error.message
        lock.unlock()
        guard !repeated else { return }
        log.notice(
            ControllerNotice(
                "waiting", "queued runs wait: \(error.message); fix it, they start once it can be read",
                isProblem: true))
    }

    private func reportHolds(_ holds: [String: DispatchPlanner.Hold], waiting: [String]) {
        // One line when the queue starts waiting, and again when the reason changes; not one per tick.
        let first = waiting.first { holds[$0] != nil }
        guard let first, let hold = holds[first] else {
            lock.lock()
            holding = false
            reportedHolds = [:]
            lock.unlock()
            return
        }
        lock.lock()
        let changed = reportedHolds[first] != hold || !holding
        reportedHolds = [first: hold]
        holding = true
        lock.unlock()
        guard changed else { return }
        let why: String
        switch hold {
        case .overallLimit(let limit): why = "\(limit) runs at once (limits.runs)"
        case .pipelineLimit(let pipeline, let limit):
            why = "\(limit) run\(limit == 1 ? "" : "s") of \(pipeline) at once"
        case .noFreeHost(let pipeline): why = "every host \(pipeline) may use is busy or out of rotation"
        }
        let count = holds.count
        log.notice(
            ControllerNotice(
                "waiting",
                "\(count) queued run\(count == 1 ? "" : "s") wait\(count == 1 ? "s" : ""), first \(first): \(why)",
                runID: first))
    }

    /// Claims the runs the plan starts, in one transaction, and starts each one claimed; returns how many started.
    private func launch(_ starts: [DispatchPlanner.Start]) -> Int {
        guard !starts.isEmpty else { return 0 }
        let taken: Set<String>
        do {
            taken = try store.claim(runIDs: starts.map(\.runID), owner: owner, at: clock())
        } catch {
            let ids = starts.map(\.runID).joined(separator: ", ")
            log.notice(ControllerNotice("problem", "could not take runs \(ids): \(error)", isProblem: true))
            return 0
        }
        var started = 0
        for start in starts where taken.contains(start.runID) {
            let item: QueuedRun?
            do {
                item = try store.queuedRun(start.runID)
            } catch {
                // Claimed but unread: back in the queue for the next pass.
                log.notice(ControllerNotice("problem", "could not read run \(start.runID): \(error)", isProblem: true))
                try? store.releaseClaim(runID: start.runID)
                continue
            }
            guard let item else { continue }
            if launch(item, host: start.host) { started += 1 }
        }
        return started
    }

    /// Starts a claimed run on a thread of its own; false when it cannot run (it is failed, with the reason).
    private func launch(_ item: QueuedRun, host: String) -> Bool {
        let request: RunRequest
        do {
            request = try executor.prepare(item)
        } catch {
            fail(item, problem: "\(error)")
            return false
        }
        let token = CancellationToken()
        lock.lock()
        active[item.runID] = ActiveRun(pipeline: item.request.pipeline, host: host, token: token, startedAt: clock())
        lock.unlock()
        log.notice(
            ControllerNotice(
                "run-started",
                "run \(item.runID) of \(item.request.pipeline) started (\(item.request.source.rawValue), requested by "
                    + "\(item.request.requestedBy)" + (item.request.reason.map { ": \($0)" } ?? "") + ")",
                runID: item.runID,
                fields: ["pipeline": item.request.pipeline, "source": item.request.source.rawValue]))
        let starter = runThreads ?? RunThreadStarter(niceness: runThreadNiceness)
        runThreads = starter
        starter.start(name: "pipe.controller.run.\(item.runID)") { [self] in
            let result = executor.execute(request, runID: item.runID, cancellation: token)
            finished(item, result)
        }
        return true
    }

    private func finished(_ item: QueuedRun, _ result: ExecutedRun) {
        let state: QueuedRun.State = result.status == nil ? .failed : .finished
        do {
            // On the run's thread: through the runs' connection, never the loop's.
            try runThreadStore.finish(runID: item.runID, state: state, problem: result.problem, at: clock())
        } catch {
            log.notice(
                ControllerNotice(
                    "problem", "could not record the end of run \(item.runID) in the queue: \(error)",
                    runID: item.runID, isProblem: true))
        }
        lock.lock()
        let run = active.removeValue(forKey: item.runID)
        lock.unlock()
        let seconds = run.map { clock().timeIntervalSince($0.startedAt) } ?? 0
        var message = "run \(item.runID) of \(item.request.pipeline) "
        if let status = result.status {
            message +=
                "ended \(status.rawValue), exit code \(result.exitCode.map(String.init) ?? "none"), after "
                + Self.seconds(seconds)
        } else {
            message += "did not start: \(result.problem ?? "unknown reason")"
        }
        if let problem = result.problem, result.status != nil { message += ": \(problem)" }
        log.notice(
            ControllerNotice(
                "run-finished", message, runID: item.runID,
                fields: [
                    "pipeline": item.request.pipeline, "status": result.status?.rawValue ?? "not-started",
                    "exitCode": result.exitCode.map(String.init) ?? "",
                ], isProblem: result.status == nil))
    }

    private func fail(_ item: QueuedRun, problem: String) {
        do {
            if item.state == .queued { _ = try store.claim(runID: item.runID, owner: owner, at: clock()) }
            try store.finish(runID: item.runID, state: .failed, problem: problem, at: clock())
        } catch {
            log.notice(
                ControllerNotice("problem", "could not mark run \(item.runID) failed: \(error)", isProblem: true))
            return
        }
        log.notice(
            ControllerNotice(
                "run-failed",
                "run \(item.runID) of \(item.request.pipeline) cannot run: \(problem); removed from the queue",
                runID: item.runID, fields: ["pipeline": item.request.pipeline], isProblem: true))
    }

    // MARK: - Looking in

    /// The runs this controller is running now, with when they started.
    public func runningRuns() -> [(runID: String, pipeline: String, startedAt: Date)] {
        lock.lock()
        defer { lock.unlock() }
        return active.map { ($0.key, $0.value.pipeline, $0.value.startedAt) }.sorted { $0.runID < $1.runID }
    }

    // MARK: - Text

    private func describe(_ config: ControllerConfig) -> String {
        var parts = [
            "\(config.schedules.count) schedule\(config.schedules.count == 1 ? "" : "s")",
            "\(config.watches.count) watch\(config.watches.count == 1 ? "" : "es")",
        ]
        if let runs = config.limits.runs { parts.append("at most \(runs) runs at once") }
        parts.append("grace period \(Self.seconds(config.gracePeriodSeconds))")
        parts.append(
            config.sessionIdleSeconds > 0
                ? "SSH sessions kept \(Self.seconds(config.sessionIdleSeconds)) for the next run"
                : "SSH sessions closed after each run")
        return parts.joined(separator: ", ")
    }

    static func seconds(_ value: Double) -> String {
        value < 120 ? String(format: "%.0f s", value) : String(format: "%.0f min", value / 60)
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: date)
    }
}

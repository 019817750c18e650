import Foundation
import PipeCore
import PipeGit

/// Polls the repositories of the config's watches for new head commits, on a thread of its own (listing a
/// remote's refs blocks), and queues the pipeline at each new head, once per commit and pipeline.
///
/// The first time a watch sees a branch it records the head as where it starts from, without a run: a new watch
/// runs from the next commit on. A head is recorded after its run is queued, and the queue refuses a second
/// request for the same commit and pipeline (its trigger key), so neither a crash between the two nor two
/// branches at one commit run it twice.
final class WatchPoller: @unchecked Sendable {
    private let store: RunQueue
    private let executor: QueuedRunExecutor
    private let log: ControllerLog
    private let clock: () -> Date
    private let lock = NSLock()
    private var watches: [WatchConfig]
    private var nextPoll: [String: Date] = [:]
    private var heads: [String: [String: String]] = [:]
    private var lastProblem: [String: String] = [:]
    private let stopped = CancellationToken()
    private var thread: Thread?

    init(
        watches: [WatchConfig], store: RunQueue, executor: QueuedRunExecutor, log: ControllerLog,
        clock: @escaping () -> Date
    ) throws {
        self.watches = watches
        self.store = store
        self.executor = executor
        self.log = log
        self.clock = clock
        for head in try store.watchHeads() { heads[head.watch, default: [:]][head.branch] = head.sha }
    }

    func start() {
        let thread = Thread { [self] in
            while !stopped.isCancelled {
                pollDue()
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        thread.name = "pipe.controller.watches"
        thread.start()
        self.thread = thread
    }

    func stop() { stopped.cancel(reason: "controller stopping") }

    /// A new config's watches (SIGHUP); a watch whose name stays keeps its schedule of polls.
    func update(_ watches: [WatchConfig]) {
        lock.lock()
        defer { lock.unlock() }
        self.watches = watches
    }

    /// The heads last seen, by watch and branch.
    func lastSeen() -> [String: [String: String]] {
        lock.lock()
        defer { lock.unlock() }
        return heads
    }

    private func pollDue() {
        lock.lock()
        let now = clock()
        let due = watches.filter { (nextPoll[$0.name] ?? .distantPast) <= now }
        for watch in due { nextPoll[watch.name] = now.addingTimeInterval(watch.intervalSeconds) }
        lock.unlock()
        for watch in due where !stopped.isCancelled { poll(watch) }
    }

    /// One poll of one watch.
    func poll(_ watch: WatchConfig) {
        let listed: [GitRemoteHead]
        let repository: String
        do {
            repository = try executor.repository(for: watch)
            listed = try GitRemoteHeads.list(repository: repository)
        } catch {
            report(
                watch,
                "watch \(watch.name): could not list the branches of pipeline \(watch.pipeline)'s repository: \(error); trying again in \(Int(watch.intervalSeconds)) s"
            )
            return
        }
        clearProblem(watch)
        let branches = listed.compactMap { head -> (String, String)? in
            guard head.ref.hasPrefix("refs/heads/") else { return nil }
            let branch = String(head.ref.dropFirst("refs/heads/".count))
            return watch.watches(branch: branch) ? (branch, head.sha) : nil
        }
        for (branch, sha) in branches {
            lock.lock()
            let known = heads[watch.name]?[branch]
            lock.unlock()
            guard known != sha else { continue }
            if known == nil {
                record(watch, branch: branch, sha: sha)
                log.notice(
                    ControllerNotice(
                        "watch-baseline",
                        "watch \(watch.name): branch \(branch) is at \(sha.prefix(12)); runs start with its next commit",
                        fields: ["watch": watch.name, "branch": branch, "sha": sha, "repository": repository]))
                continue
            }
            let request = QueueRequest(
                pipeline: watch.pipeline, ref: sha, parameters: watch.parameters, source: .watch,
                requestedBy: "watch \(watch.name)", reason: "new commit \(sha.prefix(12)) on branch \(branch)",
                triggerKey: QueueRequest.commitKey(pipeline: watch.pipeline, sha: sha, parameters: watch.parameters))
            do {
                switch try store.enqueue(request, at: clock()) {
                case .queued(let queued):
                    log.notice(
                        ControllerNotice(
                            "watch-new-commit",
                            "watch \(watch.name): new commit \(sha.prefix(12)) on \(branch): queued run \(queued.runID) "
                                + "of \(watch.pipeline)",
                            runID: queued.runID,
                            fields: ["watch": watch.name, "branch": branch, "sha": sha, "pipeline": watch.pipeline]))
                case .alreadyTriggered(_, let runID):
                    log.notice(
                        ControllerNotice(
                            "watch-known-commit",
                            "watch \(watch.name): commit \(sha.prefix(12)) on \(branch) already ran as run \(runID) "
                                + "of \(watch.pipeline); not queued again",
                            runID: runID, fields: ["watch": watch.name, "branch": branch, "sha": sha]))
                }
                record(watch, branch: branch, sha: sha)
            } catch {
                report(watch, "watch \(watch.name): could not queue commit \(sha.prefix(12)) on \(branch): \(error)")
            }
        }
    }

    private func record(_ watch: WatchConfig, branch: String, sha: String) {
        do {
            try store.recordWatchHead(WatchHead(watch: watch.name, branch: branch, sha: sha, seenAt: clock()))
            lock.lock()
            heads[watch.name, default: [:]][branch] = sha
            lock.unlock()
        } catch {
            report(watch, "watch \(watch.name): could not record the head of \(branch): \(error)")
        }
    }

    /// Logs a problem once until it changes or goes away, so a repository that is down does not flood the log.
    private func report(_ watch: WatchConfig, _ message: String) {
        lock.lock()
        let repeated = lastProblem[watch.name] == message
        lastProblem[watch.name] = message
        lock.unlock()
        if !repeated {
            log.notice(ControllerNotice("watch-problem", message, fields: ["watch": watch.name], isProblem: true))
        }
    }

    private func clearProblem(_ watch: WatchConfig) {
        lock.lock()
        lastProblem[watch.name] = nil
        lock.unlock()
    }
}

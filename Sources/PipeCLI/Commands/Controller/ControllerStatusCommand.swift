import Foundation
import PipeBasics
import PipeCore
import PipeServer
import PipeSpec
import PipeStore

/// `pipe controller status [--json]`: what the controller of this run store does: who holds it, the queue, the
/// runs in progress (host, simulator, layer, elapsed), each schedule's next slot, each watch's last seen commits,
/// and the hosts out of rotation with the reason.
enum ControllerStatusCommand {
    static func execute(_ context: CommandContext) throws -> Int32 {
        let project = try context.projectFolder()
        let now = Date()
        let configURL = ControllerCommand.configFile(context, project: project)
        var config: ControllerConfig?
        var configProblem: String?
        if FileManager.default.fileExists(atPath: configURL.path) || context.arguments.isGiven("config") {
            do {
                config = try ControllerCommand.configLoader(context, project: project).load(configURL)
            } catch {
                configProblem = "\(configURL.relativePath) is invalid (`pipe controller --check` lists its problems)"
            }
        }
        // The config's `store:` names the store, as for the controller it configures.
        let store = try StoreAccess.openWithoutSettling(context, project: project, configured: config?.store)
        StoreAccess.settleInterruptedRuns(store, project: project, console: context.console)
        let status = try Status.gather(store: store, config: config, now: now)
        if context.arguments.flag("health") { return status.isServed ? 0 : 1 }
        if context.arguments.flag("json") {
            var object = status.json(now: now)
            object["configProblem"] = RunsJSON.orNull(configProblem)
            context.console.out(try RunsJSON.text(object))
        } else {
            context.console.out(status.text(now: now, configProblem: configProblem))
        }
        return 0
    }

    /// What the status shows, read once.
    struct Status {
        var lock: ControllerLock?
        var lockAlive: RunOwner.Liveness?
        /// A PostgreSQL store: several controllers, no lock, a list with heartbeats instead.
        var severalControllers = false
        var controllers: [ControllerMember] = []
        /// `pipe run`s holding runs of their own in that store, with their heartbeats (no controller serves them).
        var runProcesses: [ControllerMember] = []
        var queued: [QueuedRun]
        var running: [(item: QueuedRun, run: StoredRun?)]
        var schedules: [(config: ScheduleConfig, state: ScheduleState?, next: Date?)]
        var watches: [(config: WatchConfig, heads: [WatchHead])]
        var otherWatchHeads: [WatchHead]
        var outOfRotation: [HostHealth]

        static func gather(store: any RelationalRunStore, config: ControllerConfig?, now: Date) throws -> Status {
            let lock = try store.controllerLock()
            let states = try store.scheduleStates()
            let heads = try store.watchHeads()
            let schedules = (config?.schedules ?? []).map { schedule in
                let state = states.first { $0.name == schedule.name }
                let from = max(state?.lastSlot ?? state?.baseline ?? now, now)
                return (schedule, state, schedule.timing.nextFire(after: from))
            }
            let watchNames = Set((config?.watches ?? []).map(\.name))
            let members = store.admitsSeveralControllers ? try store.controllers() : []
            return Status(
                lock: lock, lockAlive: lock.map { $0.owner.liveness() },
                severalControllers: store.admitsSeveralControllers,
                controllers: members.filter { $0.role == .controller },
                runProcesses: members.filter { $0.role == .run },
                queued: try store.waitingRuns(limit: 1_000),
                running: try store.queueItems(states: [.claimed], limit: 1_000).map { ($0, try store.run($0.runID)) },
                schedules: schedules,
                watches: (config?.watches ?? []).map { watch in (watch, heads.filter { $0.watch == watch.name }) },
                otherWatchHeads: heads.filter { !watchNames.contains($0.watch) },
                outOfRotation: try store.hostHealth(nil).filter { !$0.isInRotation })
        }

        /// A controller serves the store: the lock's holder is alive on this machine, or (several controllers)
        /// one heartbeat is younger than the controllers' timeout. A holder on another machine cannot be told.
        var isServed: Bool {
            if severalControllers {
                let timeout = Controller.defaultHeartbeatTimeoutSeconds
                return controllers.contains { $0.heartbeatAge < timeout }
            }
            return lockAlive == .alive
        }

        /// The layer a run is in now: the first that began and has not ended.
        static func currentLayer(_ run: StoredRun) -> String? {
            run.record.layers.first { layer in
                layer.outcome == nil && run.layerTimes[layer.name]?.startedAt != nil
            }?.name
        }

        static func json(_ member: ControllerMember) -> [String: Any] {
            [
                "pid": Int(member.owner.pid), "hostname": member.owner.hostname,
                "since": UTCTimestamp.iso8601(member.startedAt),
                "heartbeat": UTCTimestamp.iso8601(member.heartbeatAt), "heartbeatAge": member.heartbeatAge,
                "config": RunsJSON.orNull(member.configPath),
            ]
        }

        static func elapsed(_ run: StoredRun?, item: QueuedRun, now: Date) -> Double {
            let start = run.flatMap { RunsTimeExpression.absolute($0.record.startedAt) } ?? item.claimedAt ?? now
            return max(0, now.timeIntervalSince(start))
        }

        func text(now: Date, configProblem: String?) -> String {
            var out = ""
            switch (lock, lockAlive) {
            case (nil, _) where severalControllers:
                out += "controllers: \(controllers.count) serving this store (PostgreSQL, several may)\n"
                for member in controllers {
                    out +=
                        "  \(member.owner.description), since \(RunsFormatting.time(member.startedAt)), heartbeat "
                        + String(format: "%.1f s ago", member.heartbeatAge)
                        + (member.configPath.map { ", config \($0)" } ?? "") + "\n"
                }
                if !runProcesses.isEmpty {
                    out += "pipe run: \(runProcesses.count) running on their own, outside any controller\n"
                    for member in runProcesses {
                        out +=
                            "  \(member.owner.description), since \(RunsFormatting.time(member.startedAt)), "
                            + String(format: "heartbeat %.1f s ago", member.heartbeatAge) + "\n"
                    }
                }
            case (let lock?, .alive?):
                out +=
                    "controller: running, \(lock.owner.description), since \(RunsFormatting.time(lock.acquiredAt))"
                    + (lock.configPath.map { ", config \($0)" } ?? "") + "\n"
            case (let lock?, .unknown?):
                out +=
                    "controller: \(lock.owner.description) (another machine), since "
                    + "\(RunsFormatting.time(lock.acquiredAt))\n"
            case (let lock?, _):
                out +=
                    "controller: not running (\(lock.owner.description) held it and died; the next start takes "
                    + "over)\n"
            default:
                out += "controller: not running (start it with `pipe controller`)\n"
            }
            if let configProblem { out += "config: \(configProblem)\n" }

            out += "\nqueued (\(queued.count)):\n"
            if queued.isEmpty {
                out += "  none\n"
            } else {
                out += indent(
                    RunsFormatting.table(
                        header: ["RUN", "PIPELINE", "REF", "SOURCE", "REQUESTED BY", "QUEUED", "REASON"],
                        rows: queued.map { item in
                            [
                                item.runID, item.request.pipeline, item.request.ref.map(Self.short) ?? "-",
                                item.request.source.rawValue + (item.attempt > 1 ? " (again)" : ""),
                                item.request.requestedBy, RunsFormatting.time(item.enqueuedAt),
                                item.request.reason ?? "-",
                            ]
                        }))
            }

            out += "\nrunning (\(running.count)):\n"
            if running.isEmpty {
                out += "  none\n"
            } else {
                out += indent(
                    RunsFormatting.table(
                        header: ["RUN", "PIPELINE", "HOST", "SIMULATOR", "LAYER", "ELAPSED"],
                        rows: running.map { item, run in
                            [
                                item.runID, item.request.pipeline, run?.record.host?.name ?? "-",
                                run?.record.simulator?.simulator.udid ?? "-",
                                run.flatMap(Self.currentLayer) ?? (run == nil ? "starting" : "-"),
                                RunsFormatting.duration(Self.elapsed(run, item: item, now: now)),
                            ]
                        }))
            }

            out += "\nschedules (\(schedules.count)):\n"
            if schedules.isEmpty {
                out += "  none" + (configProblem == nil ? "" : " (the config could not be read)") + "\n"
            } else {
                out += indent(
                    RunsFormatting.table(
                        header: ["SCHEDULE", "PIPELINE", "WHEN", "NEXT", "LAST SLOT", "LAST RUN"],
                        rows: schedules.map { schedule, state, next in
                            [
                                schedule.name, schedule.pipeline, "\(schedule.timing)",
                                next.map(RunsFormatting.time) ?? "never",
                                state?.lastSlot.map(RunsFormatting.time) ?? "-",
                                state?.lastRunID ?? "-",
                            ]
                        }))
            }

            out += "\nwatches (\(watches.count)):\n"
            if watches.isEmpty {
                out += "  none\n"
            } else {
                var rows: [[String]] = []
                for (watch, heads) in watches {
                    let patterns = watch.branches.map(\.pattern).joined(separator: ",")
                    if heads.isEmpty {
                        rows.append([watch.name, watch.pipeline, patterns, "-", "not polled yet", "-"])
                    }
                    for head in heads {
                        rows.append([
                            watch.name, watch.pipeline, head.branch, head.sha, "last seen",
                            RunsFormatting.time(head.seenAt),
                        ])
                    }
                }
                out += indent(
                    RunsFormatting.table(
                        header: ["WATCH", "PIPELINE", "BRANCH", "LAST SEEN SHA", "", "AT"], rows: rows))
            }

            out += "\nhosts out of rotation (\(outOfRotation.count)):\n"
            if outOfRotation.isEmpty {
                out += "  none\n"
            } else {
                for health in outOfRotation {
                    out +=
                        "  \(health.host): \(health.latest.problem ?? "its last check failed") (checked "
                        + "\(RunsFormatting.time(health.latest.checkedAt)) by \(health.latest.source), "
                        + "\(health.consecutiveFailures) failed check\(health.consecutiveFailures == 1 ? "" : "s") "
                        + "in a row; `pipe hosts check` puts it back when it passes)\n"
                }
            }
            return out
        }

        func json(now: Date) -> [String: Any] {
            let controller: Any =
                lock.map { lock in
                    [
                        "pid": Int(lock.owner.pid), "hostname": lock.owner.hostname,
                        "since": UTCTimestamp.iso8601(lock.acquiredAt), "config": RunsJSON.orNull(lock.configPath),
                        "running": lockAlive != .dead,
                    ] as [String: Any]
                } ?? NSNull()
            return [
                "controller": controller, "severalControllers": severalControllers,
                "controllers": controllers.map(Self.json),
                "runProcesses": runProcesses.map(Self.json),
                "queued": queued.map { Self.json($0) },
                "running": running.map { item, run in
                    var object = Self.json(item)
                    object["host"] = RunsJSON.orNull(run?.record.host?.name)
                    object["udid"] = RunsJSON.orNull(run?.record.simulator?.simulator.udid)
                    object["layer"] = RunsJSON.orNull(run.flatMap(Self.currentLayer))
                    object["elapsedSeconds"] = Self.elapsed(run, item: item, now: now)
                    object["commit"] = RunsJSON.orNull(run?.record.commit)
                    return object
                },
                "schedules": schedules.map { schedule, state, next in
                    [
                        "name": schedule.name, "pipeline": schedule.pipeline, "when": "\(schedule.timing)",
                        "missed": schedule.missed.rawValue, "nextFire": RunsJSON.time(next),
                        "lastSlot": RunsJSON.time(state?.lastSlot), "lastRunID": RunsJSON.orNull(state?.lastRunID),
                    ] as [String: Any]
                },
                "watches": watches.map { watch, heads in
                    [
                        "name": watch.name, "pipeline": watch.pipeline, "branches": watch.branches.map(\.pattern),
                        "intervalSeconds": watch.intervalSeconds,
                        "heads": heads.map {
                            ["branch": $0.branch, "sha": $0.sha, "seenAt": UTCTimestamp.iso8601($0.seenAt)]
                        },
                    ] as [String: Any]
                },
                "hostsOutOfRotation": outOfRotation.map { health in
                    [
                        "host": health.host, "problem": RunsJSON.orNull(health.latest.problem),
                        "checkedAt": UTCTimestamp.iso8601(health.latest.checkedAt), "source": health.latest.source,
                        "consecutiveFailures": health.consecutiveFailures,
                    ] as [String: Any]
                },
            ]
        }

        static func json(_ item: QueuedRun) -> [String: Any] {
            [
                "runID": item.runID, "pipeline": item.request.pipeline, "ref": RunsJSON.orNull(item.request.ref),
                "parameters": item.request.parameters, "source": item.request.source.rawValue,
                "requestedBy": item.request.requestedBy, "reason": RunsJSON.orNull(item.request.reason),
                "enqueuedAt": UTCTimestamp.iso8601(item.enqueuedAt), "attempt": item.attempt,
                "requeueOf": RunsJSON.orNull(item.requeueOf),
            ]
        }

        static func short(_ ref: String) -> String {
            ref.count == 40 && ref.allSatisfy(\.isHexDigit) ? String(ref.prefix(12)) : ref
        }

        private func indent(_ text: String) -> String {
            text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "  \($0)" }
                .joined(separator: "\n")
        }
    }
}

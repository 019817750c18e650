import Foundation
import PipeBasics

/// Running one layer: its attempts, retries, and the record of each.
extension RunEngine {
    /// Runs the layer at `index` of the record to its end, on the calling thread (one of the scheduler's), over a
    /// connection and a simulator no other running layer uses.
    func runLayer(at index: Int, context: LayerRunContext, state: RunState) throws {
        let layerRecord = state.snapshot.layers[index]
        guard let spec = context.request.pipeline.layer(named: layerRecord.name),
            let pluginType = try pluginToRun(spec, at: index, context: context, state: state)
        else { return }
        // The host the layer runs on; another one after the run moved there from a lost host.
        var place = context.place
        var link: HostLink
        let policy = spec.retry.applied(to: context.request.pipeline.retry)
        do {
            link = try borrowLink(from: place)
        } catch {
            // The host may be gone: a run that may retry after an infrastructure failure moves to another host, as
            // it does when a layer's connection breaks mid-attempt.
            if !cancellation.isCancelled, policy.infrastructure > 0,
                let moved = try moveToAnotherHost(context, from: place, state: state),
                let other = try? borrowLink(from: moved)
            {
                place = moved
                link = other
            } else {
                try endLayerWithoutConnection(index, spec: spec, place: place, error: error, state: state)
                return
            }
        }
        defer {
            place.pool.release(for: spec.name)
            place.giveBack(link)
        }
        var simulator: Simulator?
        var usedSimulators: Set<String> = []
        var retriesTaken: [LayerOutcome: Int] = [:]
        var outcomes: [LayerOutcome] = []
        var runnerFailures: [RunnerFailureAttempt] = []
        // The failed tests the next attempt runs again, when it is a test retry.
        var testsToRetry: [TestCaseResult] = []
        let maximumAttempts = 1 + policy.infrastructure + policy.timedOut + policy.tests
        for attempt in 1...maximumAttempts {
            if pluginType.needsSimulator, simulator == nil, !place.pool.fitting.isEmpty {
                guard let free = place.pool.acquire(for: spec.name, cancellation: cancellation) else {
                    try endLayer(
                        index, outcome: .cancelled, evidence: [cancellation.cancellationReason ?? "cancelled"],
                        state: state)
                    return
                }
                simulator = free
            }
            if pluginType.needsSimulator, let wanted = simulator {
                let leased = try leaseSimulator(
                    wanted, layer: spec.name, place: place,
                    excluding: usedSimulators.union(place.pool.held(byOthersThan: spec.name)), state: state)
                simulator = leased
            }
            let layerFolder = state.runFolder.appendingPathComponent(
                attempt == 1 ? spec.name : "\(spec.name)/attempt-\(attempt)", isDirectory: true)
            try FileManager.default.createDirectory(at: layerFolder, withIntermediateDirectories: true)
            let attemptStart = clock()
            try state.locked {
                state.record.layers[index].attempts.append(
                    .init(
                        attempt: attempt, outcome: nil, evidence: [], exit: nil,
                        simulatorUDID: pluginType.needsSimulator ? simulator?.udid : nil,
                        startedAt: UTCTimestamp.iso8601(attemptStart), finishedAt: nil, durationSeconds: nil,
                        facts: [:], artifacts: []))
                try state.journal.attemptStarted(
                    state.record, layer: spec.name, attempt: state.record.layers[index].attempts[attempt - 1])
            }
            state.journal.emit(.layerStarted(layer: spec.name, attempt: attempt))

            var pluginContext = LayerContext(
                runID: state.runID, pipelineName: context.request.pipeline.name, layer: spec, attempt: attempt,
                host: link.remote, hostName: place.hostName,
                simulator: pluginType.needsSimulator ? simulator : nil, remoteRunFolder: place.remoteRunFolder,
                remoteWorkspace: place.remoteWorkspace, localArtifacts: layerFolder,
                projectDirectory: state.projectDirectory, runStartTime: state.started,
                events: state.journal, cancellation: cancellation,
                secrets: context.request.secrets.subset(spec.secrets), redactor: state.journal.redactor,
                sharedWork: context.sharedWork, runLayers: context.request.runLayers,
                runArtifacts: state.runFolder, buildCache: place.buildCache)
            // The tool's own test retries, when the plugin uses them, stand for the engine's: they are left to it.
            pluginContext.testRetries = policy.tests - retriesTaken[.testsFailed, default: 0]
            pluginContext.hostXcode = state.locked { state.record.xcode }
            pluginContext.testsToRetry = testsToRetry
            var result: LayerResult
            var connectionLost = false
            do {
                result = try pluginType.init().run(pluginContext)
                if case .lost = result.exit { connectionLost = true }
            } catch let error as RemoteError {
                result = LayerResult(outcome: .infrastructure, evidence: [error.description])
                result.hostSentRefusedContent = error.kind == .refusedContent
                connectionLost = [.connectionLost, .unreachable, .timeout].contains(error.kind)
            } catch let error as ConfigurationError {
                result = LayerResult(outcome: .hostConfig, evidence: [error.message])
            } catch {
                result = LayerResult(outcome: .pluginError, evidence: ["plugin '\(spec.plugin)' failed: \(error)"])
            }
            // Not to be given back when the run ends, unless a retry reconnects it (`HostLink.remote`).
            if connectionLost { link.lost = true }
            // A plugin may quote what a test printed: nothing of it may carry a secret into the record.
            result.evidence = state.journal.redactor.redact(result.evidence)
            result.tests = result.tests.map(state.journal.redactor.redact)
            if cancellation.isCancelled && result.outcome != .passed {
                result.outcome = .cancelled
                result.evidence.append(cancellation.cancellationReason ?? "cancelled")
            }
            var merge: TestRetryMerge?
            if !testsToRetry.isEmpty {
                let previous = state.locked { state.record.layers[index].tests }
                merge = Self.mergeRetriedTests(previous: previous, into: &result)
            }
            let finished = clock()
            try state.locked {
                let attemptIndex = state.record.layers[index].attempts.count - 1
                var record = state.record.layers[index].attempts[attemptIndex]
                record.outcome = result.outcome
                record.evidence = result.evidence
                record.exit = result.exit?.artifactText
                record.finishedAt = UTCTimestamp.iso8601(finished)
                record.durationSeconds = finished.timeIntervalSince(attemptStart)
                record.facts = result.facts.merging(["host": place.hostName]) { plugin, _ in plugin }
                if merge != nil { record.facts[LayerResult.testsRetriedFact] = String(testsToRetry.count) }
                record.artifacts = result.artifacts
                state.record.layers[index].attempts[attemptIndex] = record
                if let merge {
                    state.earlierAttempts[spec.name, default: []] += merge.replaced
                } else if attempt > 1 {
                    state.earlierAttempts[spec.name, default: []] += state.record.layers[index].tests
                }
                state.earlierAttempts[spec.name, default: []] += result.earlierRuns
                state.record.layers[index].tests = merge?.tests ?? result.tests
                if let build = BuildCacheUse(facts: result.facts) { state.record.layers[index].build = build }
                try state.journal.attemptFinished(state.record, layer: spec.name, attempt: record, tests: result.tests)
            }
            outcomes.append(result.outcome)
            let taken = retriesTaken[result.outcome, default: 0]
            var retries =
                taken < policy.retries(after: result.outcome) && attempt < maximumAttempts && !cancellation.isCancelled
            if retries, result.outcome == .testsFailed, let times = result.facts[LayerResult.toolRetriedTestsFact] {
                retries = false
                result.evidence.append(
                    "not run again: the failed tests already ran \(times) more time\(times == "1" ? "" : "s") in this "
                        + "attempt (retry.tests, by the test tool itself)")
            }
            var runnerFailedTwice: [String]?
            if result.outcome == .infrastructure, let failure = result.facts[LayerResult.testRunnerFailureFact] {
                let this = RunnerFailureAttempt(
                    attempt: attempt, failure: failure, simulator: simulator?.udid,
                    evidence: result.evidence.first ?? failure)
                runnerFailedTwice = this.repeating(any: runnerFailures)
                runnerFailures.append(this)
                if runnerFailedTwice != nil { retries = false }
            }
            if retries && result.hostSentRefusedContent {
                // A host that sent what Pipe refuses gets no second chance in this run: the retry moves the run.
                if let moved = try moveToAnotherHost(
                    context, from: place, state: state, because: "\(place.hostName) sent what Pipe refuses"),
                    moved !== place, let movedLink = try? borrowLink(from: moved)
                {
                    place.pool.release(for: spec.name)
                    place.giveBack(link)
                    (place, link) = (moved, movedLink)
                    simulator = nil
                    usedSimulators = []
                } else {
                    retries = false
                    result.evidence.append(
                        "not retried: a retry never goes back to \(place.hostName) after it sent what Pipe refuses, "
                            + "and no other host could take the layer")
                }
            }
            if retries {
                retriesTaken[result.outcome] = taken + 1
                // Another kind of retry runs again what the failed attempt ran: all tests, or the failed ones.
                if result.outcome == .testsFailed {
                    testsToRetry = state.locked { state.record.layers[index].tests.filter { $0.status == .failed } }
                }
                // An infrastructure failure or a timeout moves to another simulator where there is one (one of the
                // run's other layers does not hold); a test retry keeps the same one, so a pass on retry means the
                // test, not the device, was unsteady.
                if result.outcome != .testsFailed, pluginType.needsSimulator {
                    if let current = simulator?.udid { usedSimulators.insert(current) }
                    if let next = place.pool.exchange(for: spec.name, avoiding: usedSimulators) {
                        simulator = next
                    } else if let next = try? inspector.choose(
                        place.criteria, among: place.simulators,
                        excluding: usedSimulators.union(place.pool.held(byOthersThan: spec.name)),
                        udidSource: "the retry"),
                        place.pool.reserve(next.simulator.udid, for: spec.name)
                    {
                        // Not reserved (another layer took it meanwhile): the retry keeps its simulator.
                        simulator = next.simulator
                    }
                }
                let wait = policy.backoff(beforeRetry: retriesTaken.values.reduce(0, +))
                state.journal.emit(
                    .warning(
                        "layer \(spec.name): \(result.outcome.rawValue) (\(result.evidence.first ?? "no evidence")); "
                            + "retry \(taken + 1) of \(policy.retries(after: result.outcome)) in "
                            + String(format: "%.0f s", wait)))
                waitForRetry(seconds: wait)
                if connectionLost {
                    let reconnected = reconnect(
                        link, leftover: result.facts[LayerResult.processGroupFact].flatMap { Int32($0) },
                        journal: state.journal)
                    // The host is gone: the retry moves to another host of the pool, where there is one.
                    if !reconnected, let moved = try moveToAnotherHost(context, from: place, state: state),
                        let movedLink = try? borrowLink(from: moved)
                    {
                        place.pool.release(for: spec.name)
                        place.giveBack(link)
                        (place, link) = (moved, movedLink)
                        simulator = nil
                        usedSimulators = []
                    }
                }
                continue
            }
            var finalOutcome = RetryPolicy.finalOutcome(of: outcomes) ?? result.outcome
            if let runnerFailedTwice {
                finalOutcome = .testsFailed
                result.evidence = runnerFailedTwice + result.evidence.dropFirst()
            }
            if finalOutcome == .flaky, result.tests.isEmpty {
                // A retry that ran no tests proves nothing: the earlier failure stands.
                finalOutcome = .testsFailed
                result.evidence.append("the test retry ran no tests; the failure of an earlier attempt stands")
            } else if finalOutcome == .flaky, result.outcome != .flaky {
                // (A plugin that found the flakiness in one attempt said so in its own evidence.)
                result.evidence.insert(
                    "flaky: tests failed on an earlier attempt and passed on attempt \(attempt) (retry.tests)", at: 0)
            }
            result.outcome = finalOutcome
            // The layer's tests, merged over its test retries: counts are never added up over attempts.
            let layerTests = state.locked { state.record.layers[index].tests }
            let passedTests = layerTests.filter { $0.status == .passed }.count
            let failedTests = layerTests.filter { $0.status == .failed }.count
            try state.locked {
                state.record.layers[index].outcome = result.outcome
                state.record.layers[index].evidence = result.evidence
                try state.journal.layerFinished(state.record, layer: state.record.layers[index], at: finished)
            }
            if var build = result.releaseBuild, let store {
                // The run, not the plugin, says which run, layer and commit the build belongs to.
                build.runID = state.record.runID
                build.layer = spec.name
                build.commit = state.record.commit ?? build.commit
                try ReleaseVerificationFile.record(build, store: store, runFolder: state.runFolder)
            }
            state.journal.emit(
                .layerFinished(
                    layer: spec.name, attempt: attempt,
                    result: LayerResultSummary(
                        outcome: result.outcome, evidence: result.evidence, exitText: result.exit?.artifactText,
                        passedTests: passedTests, failedTests: failedTests,
                        seconds: finished.timeIntervalSince(attemptStart))))
            if !result.artifacts.isEmpty {
                state.journal.emit(.artifactsPulled(layer: spec.name, paths: result.artifacts.map(\.path)))
            }
            return
        }
    }

    /// The plugin that runs `spec`, or `nil` when the layer ends without running: carried over from an earlier
    /// run, not selected by `--only`, cancelled, a layer it needs did not pass, or no such plugin.
    private func pluginToRun(
        _ spec: LayerSpec, at index: Int, context: LayerRunContext, state: RunState
    ) throws -> LayerPlugin.Type? {
        if let carried = context.request.carriedOver[spec.name] {
            try endLayer(
                index, outcome: carried.outcome,
                evidence: ["carried over from run \(carried.fromRun) (not run again)"] + carried.evidence,
                state: state)
            return nil
        }
        if let only = context.request.onlyLayers, !only.contains(spec.name) {
            // Not run: no outcome, so neither a pass nor a failure; a gate over it cannot be judged.
            try state.locked {
                state.record.layers[index].evidence = ["not run: not selected by --only \(only.joined(separator: ","))"]
                try state.journal.runChanged(state.record)
            }
            return nil
        }
        if cancellation.isCancelled {
            try endLayer(
                index, outcome: .cancelled, evidence: [cancellation.cancellationReason ?? "cancelled"], state: state)
            return nil
        }
        let layers = state.snapshot.layers
        let unmet = spec.needs.compactMap { need -> String? in
            let outcome = layers.first { $0.name == need }?.outcome
            return outcome == .passed || outcome == .flaky ? nil : "\(need) (\(outcome?.rawValue ?? "not run"))"
        }
        if !unmet.isEmpty {
            try endLayer(
                index, outcome: .skipped, evidence: ["needs " + unmet.joined(separator: ", ") + ", which did not pass"],
                state: state)
            return nil
        }
        if let withheld = context.request.secretsWithheld, !spec.secrets.isEmpty {
            try endLayer(
                index, outcome: .skipped,
                evidence: [
                    "needs the secrets \(spec.secrets.joined(separator: ", ")), which are withheld: \(withheld)"
                ],
                state: state)
            return nil
        }
        guard let pluginType = plugins.plugin(kind: spec.plugin) else {
            try endLayer(
                index, outcome: .pluginError,
                evidence: ["no plugin of kind '\(spec.plugin)'; known kinds: \(plugins.kinds.joined(separator: ", "))"],
                state: state)
            return nil
        }
        return pluginType
    }

    /// Names the host-side cache of a workspace: one per repository and workspace folder, so runs of the same
    /// project send only what changed.
    static func workspaceCacheKey(_ repository: RepositorySpec, project: URL) -> String {
        let identity = (repository.location ?? project.standardizedFileURL.path) + "\u{0}" + repository.workspacePath
        return String(SHA256Digest.hex(of: Data(identity.utf8)).prefix(16))
    }

    /// Opens a new connection for the next attempt; when that fails too, the attempt fails as infrastructure.
    /// The process group the lost attempt left running on the host (`leftover`) is killed first: it would
    /// otherwise go on using the simulator the retry may need.
    @discardableResult
    func reconnect(_ link: HostLink, leftover: Int32?, journal: RunJournal) -> Bool {
        do {
            link.remote = Self.prepared(
                try connector.connect(link.host, cancellation: cancellation).remote, environment: link.environment)
            journal.emit(.warning("reconnected to \(link.host.name) after the connection was lost"))
            if let group = leftover, group > 1 {
                _ = try? link.remote.capture("kill -KILL -\(group) 2>/dev/null; true", timeoutSeconds: 30)
            }
            return true
        } catch {
            journal.emit(.warning("could not reconnect to \(link.host.name): \(error)"))
            return false
        }
    }

    /// Sets the run up on another of its candidate hosts (not one it used already), for the layers still to run;
    /// `nil` when there is none or it cannot be reached either (the retry then fails as infrastructure). Layers
    /// running at once lose the same host together: the first to get here moves the run, the others follow it.
    func moveToAnotherHost(
        _ context: LayerRunContext, from lost: HostPlace, state: RunState, because reason: String? = nil
    ) throws -> HostPlace? {
        context.moving.lock()
        defer { context.moving.unlock() }
        if context.place !== lost { return context.place }
        let used = Set(context.places.map(\.link.host.name))
        guard context.candidates.contains(where: { !used.contains($0.name) }) else { return nil }
        do {
            let place = try setUpHost(
                context.candidates, excluding: used, workspace: context.workspace, request: context.request,
                state: state)
            state.journal.emit(
                .warning(
                    "moved the run from \(lost.hostName) to \(place.hostName): \(reason ?? "\(lost.hostName) is gone")")
            )
            context.move(to: place)
            return place
        } catch let error as RemoteError {
            state.journal.emit(.warning("no other host could take the run: \(error.description)"))
            return nil
        }
    }

    /// Sleeps before a retry, waking early when the run is cancelled.
    func waitForRetry(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !cancellation.isCancelled { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// Ends a layer that got no connection of its own: cancelled, or an infrastructure failure that names the host.
    private func endLayerWithoutConnection(
        _ index: Int, spec: LayerSpec, place: HostPlace, error: Error, state: RunState
    ) throws {
        let cancelled = cancellation.isCancelled
        try endLayer(
            index, outcome: cancelled ? .cancelled : .infrastructure,
            evidence: [
                cancelled
                    ? cancellation.cancellationReason ?? "cancelled"
                    : "could not open a connection of its own to \(place.hostName) for layer \(spec.name) "
                        + "(layers running at once use one each): \(error)"
            ], state: state)
    }

    func endLayer(_ index: Int, outcome: LayerOutcome, evidence: [String], state: RunState) throws {
        let name = try state.locked {
            state.record.layers[index].outcome = outcome
            state.record.layers[index].evidence = evidence
            try state.journal.layerFinished(state.record, layer: state.record.layers[index], at: clock())
            return state.record.layers[index].name
        }
        state.journal.emit(
            .layerFinished(
                layer: name, attempt: 0,
                result: LayerResultSummary(
                    outcome: outcome, evidence: evidence, exitText: nil, passedTests: 0, failedTests: 0, seconds: 0)))
    }
}

/// An attempt that ended because the test runner never got to the tests, and where.
struct RunnerFailureAttempt {
    var attempt: Int
    /// The `TestRunnerFailure` text the plugin matched.
    var failure: String
    var simulator: String?
    var evidence: String

    /// The layer's evidence when an earlier attempt failed the same way on another simulator: an app that crashes
    /// at launch stops the runner on every simulator, so a second device with the same failure points at the app.
    func repeating(any earlier: [RunnerFailureAttempt]) -> [String]? {
        guard let simulator,
            let first = earlier.first(where: { $0.failure == failure && $0.simulator.map { $0 != simulator } ?? false })
        else { return nil }
        return [
            "the test runner never started on two simulators; the app may crash at launch",
            "attempt \(first.attempt) on simulator \(first.simulator ?? "?"): \(first.evidence)",
            "attempt \(attempt) on simulator \(simulator): \(evidence)",
        ]
    }
}

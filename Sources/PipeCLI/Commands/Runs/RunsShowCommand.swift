import Foundation
import PipeBasics
import PipeCore

/// `pipe runs show <run>`: one run in full, from the run store and the run's folder.
enum RunsShowCommand {
    static let spec = CommandSpec(
        name: "show",
        summary: "Show one run: layers, outcomes and evidence, attempts, host, simulator, commit, artifacts.",
        discussion: """
            Shows what the run was asked to do (pipeline, ref, parameters, who and why) and what it did: the \
            commit, the host and its verified key fingerprint, Xcode, the simulator UDID and why it was chosen, \
            every layer with its outcome, evidence and timings, every attempt (simulator, exit, duration), the \
            tests' results, sign-offs, and the artifacts (paths relative to the project folder, sizes, SHA-256 \
            digests). Files in artifacts/<run id>/ that the store never recorded (a layer cut short by a crash) are \
            listed too. An interrupted or cancelled run says when and why, and whether its folder on the host is \
            still waiting for clean-up.

            --json prints the run record (the shape of artifacts/<run id>/summary.json) with what only the store \
            knows added: owner, cancellation, interruptedAt, signoffs, runArtifacts, layerTimes, \
            remoteFolderPendingCleanup, unrecordedFiles.

            Examples:
              pipe runs show last
              pipe runs show 20261129-1403
              pipe runs show 20261129-140312-7f3a --json
            """,
        arguments: [.optional("run", help: "A run id, a unique prefix of one, or `last` (the default).")],
        options: [.flag("json", help: "Print the run as JSON.")])

    static func execute(_ session: RunsSession) throws -> Int32 {
        let run = try session.runArgument()
        let store = try session.store
        let pendingCleanup = try store.pendingRemoteCleanups().contains { $0.runID == run.record.runID }
        let unrecorded = RunsArtifactFiles.unrecorded(
            in: session.runFolder(run.record.runID), recorded: Set(run.allArtifacts.map(\.path)), session: session)
        if session.arguments.flag("json") {
            session.console.out(
                try RunsJSON.text(try json(run, pendingCleanup: pendingCleanup, unrecorded: unrecorded)))
        } else {
            session.console.out(text(run, pendingCleanup: pendingCleanup, unrecorded: unrecorded, session: session))
        }
        return 0
    }

    // MARK: - Text

    static func text(_ run: StoredRun, pendingCleanup: Bool, unrecorded: [RunsArtifactFiles.File], session: RunsSession)
        -> String
    {
        let record = run.record
        var out = "run \(record.runID) · \(record.pipeline) · \(record.status.rawValue)"
        if let code = record.exitCode { out += " · exit \(RunsFormatting.exit(code))" }
        out += "\n\n"
        let facts = self.facts(run, pendingCleanup: pendingCleanup, session: session)
        let width = facts.map(\.0.count).max() ?? 0
        for (label, value) in facts {
            out += "  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value + "\n"
        }

        out += "\nLAYERS\n"
        for layer in record.layers {
            out += layerText(layer, times: run.layerTimes[layer.name])
        }
        if !run.signoffs.isEmpty {
            out += "\nSIGN-OFFS\n"
            for signoff in run.signoffs {
                var line = "  \(signoff.layer): \(signoff.decision.rawValue) by \(signoff.signedBy) at "
                line += RunsFormatting.time(signoff.at)
                if let note = signoff.note, !note.isEmpty { line += ": \(note)" }
                out += line + "\n"
            }
        }
        out += "\nARTIFACTS (relative to \(session.project.url.path))\n"
        out += artifactsText(run, unrecorded: unrecorded, session: session)
        return out
    }

    /// The run-level facts, as label and value.
    private static func facts(_ run: StoredRun, pendingCleanup: Bool, session: RunsSession) -> [(String, String)] {
        let record = run.record
        var facts: [(String, String)] = []
        facts.append(
            (
                "pipeline",
                "\(record.pipeline) (\(relativePath(URL(fileURLWithPath: record.pipelineFile), to: session.project.url)))"
            ))
        var requested = "by \(record.request.requestedBy) via \(record.request.trigger)"
        if let reason = record.request.reason, !reason.isEmpty { requested += ": \(reason)" }
        facts.append(("requested", requested))
        var ref = record.request.ref
        if let commit = record.commit { ref += " → commit \(commit)" }
        if let resolved = record.resolvedRef, resolved != record.request.ref { ref += " (\(resolved))" }
        facts.append(("ref", ref))
        if let code = record.code { facts.append(("code", "\(code.level.rawValue): \(code.reason)")) }
        if !record.request.parameters.isEmpty {
            facts.append(
                (
                    "parameters",
                    record.request.parameters.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: ", ")
                ))
        }
        if let host = record.host {
            facts.append(("host", "\(host.name) (\(host.endpoint)), \(host.keyType) host key \(host.fingerprint)"))
        } else if let host = record.request.host {
            facts.append(("host", "\(host) (asked for; never connected)"))
        }
        if let xcode = record.xcode { facts.append(("xcode", xcode)) }
        if let choice = record.simulator {
            facts.append(
                ("simulator", "\(choice.simulator.udid) \(choice.simulator.name) (\(choice.simulator.runtimeName))"))
            facts.append(("chosen", choice.reason))
        } else if let udid = record.request.udid {
            facts.append(("simulator", "\(udid) (asked for)"))
        }
        var timing = "started \(RunsFormatting.time(record.startedAt))"
        if let finished = record.finishedAt { timing += ", ended \(RunsFormatting.time(finished))" }
        if let duration = record.durationSeconds {
            timing += ", took \(RunsFormatting.duration(duration))"
        } else if record.status == .running, let started = RunsTimeExpression.absolute(record.startedAt) {
            timing += ", running for \(RunsFormatting.duration(Date().timeIntervalSince(started)))"
        }
        facts.append(("time (UTC)", timing))
        if let owner = run.owner {
            var line = owner.description
            if record.status == .running || record.status == .queued {
                switch owner.liveness() {
                case .alive: line += " (running)"
                case .dead: line += " (gone)"
                case .unknown: line += " (another machine)"
                }
            }
            facts.append(("coordinator", line))
        }
        if let folder = record.remoteRunFolder {
            let state: String
            if record.status == .running || record.status == .queued {
                state = "in use"
            } else if pendingCleanup {
                state = "left on \(record.host?.name ?? "the host") for `pipe hosts clean`"
            } else {
                state = "removed"
            }
            facts.append(("remote folder", "\(folder) (\(state))"))
        }
        if let problem = record.problem { facts.append(("problem", problem)) }
        if let cancellation = run.cancellation {
            facts.append(
                (
                    "cancellation",
                    "asked by \(cancellation.requestedBy) at \(RunsFormatting.time(cancellation.at)): \(cancellation.reason)"
                ))
        }
        if let interrupted = run.interruptedAt {
            // The problem line says when the coordinator was last heard of.
            facts.append(("interrupted", "found at \(RunsFormatting.time(interrupted)) by a later pipe process"))
        }
        return facts
    }

    /// The artifacts the store recorded, with sizes, digests and whether they are still on disk, then the files
    /// it never heard of.
    private static func artifactsText(_ run: StoredRun, unrecorded: [RunsArtifactFiles.File], session: RunsSession)
        -> String
    {
        let record = run.record
        var out = ""
        let artifacts = run.allArtifacts
        if artifacts.isEmpty && unrecorded.isEmpty { out += "  none recorded\n" }
        var rows: [[String]] = []
        let missing = run.artifactsMachineElsewhere.map { "  (on \($0), not on this machine)" } ?? "  (missing on disk)"
        var anyMissing = false
        for artifact in artifacts {
            let url = session.projectURL(artifact.path)
            let onDisk = FileManager.default.fileExists(atPath: url.path)
            if !onDisk { anyMissing = true }
            // The store leaves the size of tiny files (exit-code) unrecorded: the disk tells.
            let bytes = artifact.bytes ?? (onDisk ? RunsArtifactFiles.size(of: url) : nil)
            rows.append([
                bytes.map(RunsFormatting.bytes) ?? "-", artifact.sha256.map { "sha256:" + $0.prefix(16) } ?? "-",
                artifact.path + (onDisk ? "" : missing),
            ])
        }
        let inProgress = record.status == .running || record.status == .queued
        for file in unrecorded {
            let note = inProgress ? "(being written; recorded when its attempt ends)" : "(on disk, not recorded)"
            rows.append([RunsFormatting.bytes(file.bytes), "-", file.path + "  " + note])
        }
        if !rows.isEmpty {
            let table = RunsFormatting.table(header: ["SIZE", "DIGEST", "PATH"], rows: rows)
            out += table.split(separator: "\n").map { "  " + $0 + "\n" }.joined()
        }
        let summary = "artifacts/\(record.runID)/summary.json"
        if FileManager.default.fileExists(atPath: session.projectURL(summary).path) {
            out += "  run record: \(summary)\n"
        }
        if anyMissing, let machine = run.artifactsMachineElsewhere {
            out +=
                "  the run's files are kept on \(machine), which ran it: look there, or share the project's "
                + "artifacts/ folder between the machines (docs/scale-out.md)\n"
        }
        return out
    }

    private static func layerText(_ layer: RunRecord.LayerRecord, times: StoredRun.LayerTimes?) -> String {
        let outcome = layer.outcome?.rawValue ?? (layer.attempts.isEmpty ? "pending" : "running")
        let mark = layer.outcome.map(LiveRenderer.mark(for:)) ?? "▸"
        var head = "  \(mark) \(layer.name): \(outcome) (\(layer.plugin), \(layer.gate.rawValue) gate"
        if !layer.needs.isEmpty { head += ", needs \(layer.needs.joined(separator: ", "))" }
        head += ")"
        if let started = times?.startedAt {
            head += " \(RunsFormatting.time(started))"
            if let finished = times?.finishedAt {
                head +=
                    " → \(RunsFormatting.time(finished).suffix(8)), \(RunsFormatting.duration(finished.timeIntervalSince(started)))"
            }
        }
        var out = head + "\n"
        if let build = layer.build {
            out +=
                "      built \(build.state.rawValue)" + (build.cache.map { " in build cache \($0)" } ?? "")
                + (build.reason.map { " (\($0))" } ?? "") + "\n"
        }
        for evidence in layer.evidence { out += "      \(evidence)\n" }
        for attempt in layer.attempts {
            var line = "      attempt \(attempt.attempt): \(attempt.outcome?.rawValue ?? "running")"
            if let exit = attempt.exit { line += ", exit \(exit)" }
            if let udid = attempt.simulatorUDID { line += ", simulator \(udid)" }
            line += ", \(attempt.durationSeconds.map(RunsFormatting.duration) ?? "not ended")"
            out += line + "\n"
            // The layer's evidence repeats the last attempt's; earlier attempts (retries) have their own.
            if attempt.attempt != layer.attempts.last?.attempt || layer.outcome == nil {
                for evidence in attempt.evidence { out += "          \(evidence)\n" }
            }
        }
        if !layer.tests.isEmpty {
            let count = { (status: TestCaseResult.Status) in layer.tests.filter { $0.status == status }.count }
            out += "      tests: \(count(.passed)) passed, \(count(.failed)) failed, \(count(.skipped)) skipped"
            out += count(.expectedFailure) > 0 ? ", \(count(.expectedFailure)) expected failures\n" : "\n"
            for test in layer.tests where test.status == .failed {
                var line = "        ✗ \(test.identifier)"
                if let message = test.failureMessage {
                    line += ": " + (test.failureLocation.map { "\($0): " } ?? "") + message
                }
                out += line + "\n"
            }
        }
        return out
    }

    // MARK: - JSON

    static func json(_ run: StoredRun, pendingCleanup: Bool, unrecorded: [RunsArtifactFiles.File]) throws -> Any {
        guard var object = try RunsJSON.object(run.record) as? [String: Any] else { return [:] }
        object["owner"] = try run.owner.map { try RunsJSON.object($0) } ?? NSNull()
        object["cancellation"] =
            run.cancellation.map {
                ["reason": $0.reason, "requestedBy": $0.requestedBy, "at": UTCTimestamp.iso8601($0.at)] as [String: Any]
            } ?? NSNull()
        object["interruptedAt"] = RunsJSON.time(run.interruptedAt)
        object["signoffs"] = run.signoffs.map {
            [
                "layer": $0.layer, "decision": $0.decision.rawValue, "signedBy": $0.signedBy,
                "note": RunsJSON.orNull($0.note), "at": UTCTimestamp.iso8601($0.at),
            ] as [String: Any]
        }
        object["runArtifacts"] = try RunsJSON.object(run.runArtifacts)
        object["layerTimes"] = Dictionary(
            uniqueKeysWithValues: run.layerTimes.map { name, times in
                (name, ["startedAt": RunsJSON.time(times.startedAt), "finishedAt": RunsJSON.time(times.finishedAt)])
            })
        object["remoteFolderPendingCleanup"] = pendingCleanup
        object["unrecordedFiles"] = unrecorded.map { ["path": $0.path, "bytes": $0.bytes] as [String: Any] }
        object["updatedAt"] = UTCTimestamp.iso8601(run.updatedAt)
        return object
    }
}

import Foundation
import PipeBasics
import PipeCore
import PipeHTTP

extension ChatOpsEndpoint {
    /// Verifies, reads, limits, parses, authorizes and carries out one complete request.
    func handle(_ request: HTTPRequest) -> Outcome {
        var entry = entry(for: request.head, fallback: request.head.remoteAddress)
        let now = entry.at
        func refuse(_ status: Int, _ reason: String, kind: String? = nil, text: String? = nil) -> Outcome {
            entry.decision = .refused
            entry.reason = reason
            entry.kind = kind
            return Outcome(response: Self.ephemeral(ChatText.plain(text ?? reason), status: status), audit: entry)
        }

        // 1. Proof that the chat sent it, before anything else is believed. Slack signs the raw bytes, so it is
        //    checked before the body is even decoded; Mattermost's token is a form field.
        var form: [String: String] = [:]
        do {
            if config.dialect == .slack { try verifier.verify(request, form: [:], now: now) }
            form = try FormDecoder.dictionary(request.body)
            if config.dialect == .mattermost { try verifier.verify(request, form: form, now: now) }
        } catch let failure as VerificationFailure {
            return refuse(failure.status, failure.message, kind: failure.kind)
        } catch {
            return refuse(400, "the body is not a form: \(error)", kind: "not a form")
        }
        let command: SlashCommand
        do {
            command = try SlashCommand(form: form)
        } catch {
            return refuse(400, "not a slash command: \(error.message)", kind: "not a slash command")
        }
        entry.verified = true
        entry.userID = command.userID
        entry.userName = command.userName.isEmpty ? nil : command.userName
        entry.channelID = command.channelID.isEmpty ? nil : command.channelID
        entry.teamID = command.teamID.isEmpty ? nil : command.teamID
        entry.text = command.text

        // 2. Per-user rate.
        let rateWait: Double?
        do {
            rateWait = try rateLimiter.take(command.userID, now: now)
        } catch {
            return refuse(
                503, "the rate limit could not be checked: \(error)", kind: "store unavailable",
                text: "the request could not be checked right now: try again shortly")
        }
        if let wait = rateWait {
            return refuse(
                429, "rate limit: \(config.limits.requestsPerMinute) requests a minute per user", kind: "rate limit",
                text: "too many requests: try again in \(Int(wait.rounded(.up))) s "
                    + "(\(config.limits.requestsPerMinute) a minute per user)")
        }

        // 3. What was asked. Slack escapes &, < and > in the text it sends.
        let text = config.dialect == .slack ? Self.unescapeSlack(command.text) : command.text
        let parsed: ChatCommand
        do {
            parsed = try ChatCommandParser.parse(text)
        } catch {
            entry.decision = .failed
            entry.reason = "not understood: \(error.message)"
            let help = Self.help(topic: error.command, command: command.command)
            return Outcome(response: Self.ephemeral("\(ChatText.plain(error.message))\n\(help)"), audit: entry)
        }
        entry.command = parsed.name
        return carryOut(parsed, command: command, entry: entry, now: now)
    }

    private func carryOut(_ parsed: ChatCommand, command: SlashCommand, entry: ChatAuditEntry, now: Date) -> Outcome {
        var entry = entry
        let authorization = config.authorization
        let who = command.requester
        let slash = ChatText.plain(command.command)
        func answer(_ text: String, decision: ChatAuditEntry.Decision = .accepted, reason: String) -> Outcome {
            entry.decision = decision
            entry.reason = reason
            return Outcome(response: Self.ephemeral(text), audit: entry)
        }
        func forbid(_ reason: String) -> Outcome {
            entry.decision = .refused
            entry.reason = reason
            if let channel = responseChannel(command, now: now, inChannel: false) {
                notifier.send("refused: \(ChatText.plain(reason))", to: channel, summary: "a refusal")
            }
            return Outcome(response: Self.ephemeral("refused: \(ChatText.plain(reason))", status: 403), audit: entry)
        }
        func failed(_ action: String, _ error: Error) -> Outcome {
            let message = (error as? ChatOpsBackendError)?.message ?? "could not \(action): \(error)"
            return answer(ChatText.block(message), decision: .failed, reason: message)
        }

        if case .help(let topic) = parsed {
            return answer(Self.help(topic: topic, command: command.command), reason: "help")
        }
        guard authorization.mayRead(user: command.userID, channel: command.channelID) else {
            return forbid(authorization.readRefusal(user: command.userID, channel: command.channelID, who: who))
        }
        do {
            switch parsed {
            case .help:
                return answer(Self.help(command: command.command), reason: "help")
            case .run(let pipeline, let ref, let parameters):
                let known = try backend.pipelineNames()
                guard known.contains(pipeline) else {
                    var message = "no pipeline '\(ChatText.plain(pipeline))'"
                    if let near = EditDistance.nearest(to: pipeline, in: known) {
                        message += "; did you mean '\(ChatText.plain(near))'?"
                    }
                    message += known.isEmpty ? "" : " (pipelines: \(ChatText.plain(known.joined(separator: ", "))))"
                    return answer(
                        message + "\n" + Self.help(topic: "run", command: command.command),
                        decision: .failed, reason: "no pipeline \(pipeline)")
                }
                guard authorization.mayRun(pipeline, user: command.userID, channel: command.channelID) else {
                    return forbid(
                        authorization.runRefusal(pipeline, user: command.userID, channel: command.channelID, who: who))
                }
                let queued = try backend.enqueue(
                    ChatRunRequest(
                        pipeline: pipeline, ref: ref, parameters: parameters, requestedBy: who,
                        reason: "chat: \(command.command) \(command.text) (channel \(command.channelID), team "
                            + "\(command.teamID))",
                        userID: command.userID, channelID: command.channelID))
                entry.runID = queued.runID
                var text = ChatMessages.queued(queued)
                if let channel = responseChannel(
                    command, now: now, inChannel: config.resultsInChannel, run: queued.runID)
                {
                    watcher.watch(queued.runID, channel: channel)
                } else {
                    text +=
                        "\n(results will not be posted here: this request's response_url is not one "
                        + "chatops.response-urls allows; `\(slash) status \(ChatText.plain(queued.runID))` shows the "
                        + "run)"
                }
                return answer(text, reason: "queued run \(queued.runID) of \(pipeline)")
            case .status(let typed):
                let runID = try backend.resolveRun(typed)
                entry.runID = runID
                guard let record = try backend.record(run: runID) else {
                    return answer(
                        "run \(ChatText.plain(runID)) has not started yet (it waits in the queue), or is unknown",
                        decision: .failed, reason: "no record of run \(runID)")
                }
                return answer(ChatMessages.status(record), reason: "status of \(runID)")
            case .runs(let pipeline):
                return answer(
                    ChatMessages.runs(try backend.runs(pipeline: pipeline, limit: 10), pipeline: pipeline),
                    reason: "runs")
            case .gate(let typed, let gate):
                let runID = try backend.resolveRun(typed)
                entry.runID = runID
                return answer(
                    ChatMessages.gate(try backend.gate(run: runID, gate: gate)), reason: "\(gate) gate of \(runID)")
            case .hosts:
                return answer(ChatMessages.hosts(try backend.hosts()), reason: "hosts")
            case .approve(let forge, let number, let head):
                return try approve(
                    ChatApprovalRequest(
                        forge: forge, number: number, headSHA: head, userID: command.userID, approvedBy: who),
                    command: command, now: now, answer: answer, forbid: forbid)
            case .signoff(let typed, let layer, let verdict, let fields, let note):
                let runID = try backend.resolveRun(typed)
                entry.runID = runID
                guard let record = try backend.record(run: runID) else {
                    return answer(
                        "run \(ChatText.plain(runID)) has not started yet (it waits in the queue), or is unknown",
                        decision: .failed, reason: "no record of run \(runID)")
                }
                guard authorization.maySignoff(pipeline: record.pipeline, layer: layer, user: command.userID) else {
                    return forbid(
                        authorization.signoffRefusal(
                            pipeline: record.pipeline, layer: layer, user: command.userID, who: who))
                }
                let receipt = try backend.signoff(
                    ChatSignoffRequest(
                        runID: runID, layer: layer, verdict: verdict, fields: fields, note: note, signedBy: who, at: now
                    ))
                return answer(
                    ChatMessages.signedOff(receipt), reason: "signed \(layer) of \(runID): \(verdict.rawValue)")
            }
        } catch {
            return failed(parsed.name, error)
        }
    }

    /// Hands an approval to the backend, which reads the forge off this thread: the chat hears at once that it
    /// started, and its outcome on the request's `response_url` (or in the server's log when there is none).
    private func approve(
        _ request: ChatApprovalRequest, command: SlashCommand, now: Date,
        answer: (String, ChatAuditEntry.Decision, String) -> Outcome, forbid: (String) -> Outcome
    ) throws -> Outcome {
        let channel = responseChannel(command, now: now, inChannel: config.resultsInChannel)
        let (notifier, log) = (self.notifier, self.log)
        let what = "pull request #\(request.number) of \(request.forge)"
        let started: String
        do {
            started = try backend.approve(request) { outcome in
                if let channel {
                    notifier.send(ChatText.plain(outcome), to: channel, summary: "the approval of \(what)")
                } else {
                    log("chatops: the approval of \(what) by \(AuditText.cut(request.approvedBy, to: 200)): \(outcome)")
                }
            }
        } catch let refused as ChatApprovalRefused {
            return forbid(refused.message)
        }
        let later =
            channel == nil
            ? "\n(the outcome will not be posted here: this request's response_url is not one chatops.response-urls "
                + "allows; `pipe forge deliveries` and the controller's log show it)"
            : ""
        return answer(ChatText.plain(started) + later, .accepted, "approving \(what)")
    }

    /// The request's `response_url` as a channel, when there is one and the config allows it.
    func responseChannel(_ command: SlashCommand, now: Date, inChannel: Bool, run: String? = nil) -> ResponseChannel? {
        guard let url = command.responseURL else { return nil }
        if let refusal = ResponseURLRule.refusal(of: url, by: config.responseURLs) {
            log(
                "chatops: not posting to the response_url of \(AuditText.cut(command.requester, to: 200)): "
                    + refusal)
            return nil
        }
        return notifier.channel(
            url: url, requestedAt: now, inChannel: inChannel,
            label: command.requester + (run.map { ", run \($0)" } ?? ""))
    }

    /// The help as the chat shows it: its `<run>`-style placeholders, and the command as the request named it,
    /// escaped like any other text.
    static func help(topic: String? = nil, command: String) -> String {
        ChatText.block(ChatCommandParser.help(topic: topic, command: command))
    }

    /// Slack sends `&`, `<` and `>` in a command's text as `&amp;`, `&lt;` and `&gt;`.
    static func unescapeSlack(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

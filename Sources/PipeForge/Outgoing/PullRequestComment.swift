import PipeBasics
import PipeCore

/// The one comment Pipe keeps on a pull request for one pipeline, edited in place on every run: a marker, the
/// merge and release verdicts, the failing tests with their messages, the release checklists with the command
/// that signs them, and the run id, within the forge's size limit.
public struct PullRequestComment: Sendable {
    public var pipeline: String
    public var runID: RunID
    public var sha: CommitSHA
    /// The gates, merge first.
    public var gates: [ForgeGateReport]
    public var failingTests: [ForgeFailingTest]
    public var checklists: [ForgeChecklist]
    /// `<base-url>/runs/<id>` when the config gives a base URL.
    public var runURL: String?

    public init(
        pipeline: String, runID: RunID, sha: CommitSHA, gates: [ForgeGateReport],
        failingTests: [ForgeFailingTest] = [], checklists: [ForgeChecklist] = [], runURL: String? = nil
    ) {
        self.pipeline = pipeline
        self.runID = runID
        self.sha = sha
        self.gates = gates
        self.failingTests = failingTests
        self.checklists = checklists
        self.runURL = runURL
    }

    /// The first line of every comment Pipe writes for `pipeline`. The name is percent-encoded, so no name can
    /// end the HTML comment; anyone can copy it, so it is matched together with the author (`PullRequestCommentSearch`).
    public static func marker(pipeline: String) -> String {
        "<!-- pipe:comment pipeline=\(ForgePath.encode(pipeline)) -->"
    }

    /// Each failing test's message is shown up to this many characters and lines.
    static let messageScalars = 2_000
    static let messageLines = 30

    /// The Markdown body, at most `ForgeLimits.of(forge).commentBody` characters: tests that do not fit are
    /// counted in a line that points to the run.
    public func body(for forge: ForgeKind) -> String {
        body(limit: ForgeLimits.of(forge).commentBody)
    }

    /// The body within `limit` Unicode scalars; a check run's summary leaves the marker out.
    public func body(limit: Int, withMarker: Bool = true) -> String {
        let head = header(withMarker: withMarker)
        let tail = checklistSection() + footer()
        var tests = ""
        var shown = 0
        if !failingTests.isEmpty {
            let title = "#### Failing tests (\(failingTests.count))\n\n"
            let budget = limit - count(head) - count(tail) - count(title) - count(omissionLine(failingTests.count))
            var used = 0
            for test in failingTests {
                let entry = entry(for: test)
                guard used + count(entry) <= budget else { break }
                tests += entry
                used += count(entry)
                shown += 1
            }
            if shown < failingTests.count { tests += omissionLine(failingTests.count - shown) }
            tests = title + tests + "\n"
        }
        let whole = head + tests + tail
        if count(whole) <= limit { return whole }
        return minimal(limit: limit, withMarker: withMarker)
    }

    private func header(withMarker: Bool) -> String {
        var text = withMarker ? PullRequestComment.marker(pipeline: pipeline) + "\n" : ""
        text += "### Pipe: \(ForgeMarkdown.code(pipeline))\n\n"
        text += "Run \(ForgeMarkdown.code(runID.value)) at \(ForgeMarkdown.code(sha.short))"
        if let runURL, runURL.hasPrefix("https://") || runURL.hasPrefix("http://") {
            text += " · [details](<\(runURL.filter { !"<> \n".contains($0) })>)"
        }
        text += "\n\n"
        for report in gates {
            text +=
                "- **\(report.gate.rawValue)**: \(PullRequestComment.verdictWord(report.state)) · "
                + ForgeMarkdown.plain(ForgeTextCut.cut(report.headline, toScalars: 300)) + "\n"
        }
        return text + "\n"
    }

    private func entry(for test: ForgeFailingTest) -> String {
        var text = "- \(ForgeMarkdown.code(short(test.name))) in \(ForgeMarkdown.code(short(test.layer)))"
        if let file = test.file {
            let place = test.line.map { "\(file):\($0)" } ?? file
            text += " at \(ForgeMarkdown.code(short(place)))"
        }
        text += "\n"
        let head = String(test.message.unicodeScalars.prefix(PullRequestComment.messageScalars + 1))
        let lines = head.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let kept = lines.prefix(PullRequestComment.messageLines).joined(separator: "\n")
        let message = ForgeTextCut.cut(
            lines.count > PullRequestComment.messageLines ? kept + "\n…" : kept,
            toScalars: PullRequestComment.messageScalars)
        if !message.isEmpty { text += ForgeMarkdown.block(message, indent: 2) }
        return text
    }

    /// A name, layer or place on one line of at most 300 characters, so one cannot crowd out the others.
    private func short(_ text: String) -> String {
        ForgeTextCut.cut(ForgeTextCut.oneLine(String(text.unicodeScalars.prefix(1_000))), toScalars: 300)
    }

    private func omissionLine(_ omitted: Int) -> String {
        "- … and \(omitted) more \(omitted == 1 ? "test" : "tests") not shown here: "
            + "`pipe runs show \(runID.value)` lists every one\n"
    }

    private func checklistSection() -> String {
        guard !checklists.isEmpty else { return "" }
        var text = "#### Release checklist\n\n"
        for checklist in checklists {
            let box = checklist.standing == .signedOff ? "[x]" : "[ ]"
            text += "- \(box) \(ForgeMarkdown.code(checklist.layer)): \(checklist.standing.rawValue)"
            if let who = checklist.signedBy { text += " by \(ForgeMarkdown.code(who))" }
            text += "\n"
            for item in checklist.items.prefix(50) {
                text += "  - " + ForgeMarkdown.plain(ForgeTextCut.cut(item, toScalars: 300)) + "\n"
            }
            if checklist.standing == .awaitingSignoff || checklist.standing == .rejected {
                text += "\n  Sign it off with:\n\n" + ForgeMarkdown.block(signoffCommand(checklist), indent: 2)
            }
        }
        return text + "\n"
    }

    /// `pipe signoff <run> <layer> --result pass|fail --field <name>=… …`, with the fields the checklist requires.
    public func signoffCommand(_ checklist: ForgeChecklist) -> String {
        ([
            "pipe signoff", ShellQuote.quote(runID.value), ShellQuote.quote(checklist.layer), "--result pass|fail",
        ] + checklist.requiredFields.map { "--field " + ShellQuote.quote($0 + "=…") })
        .joined(separator: " ")
    }

    private func footer() -> String {
        "<sub>Pipe edits this comment on every run of \(ForgeMarkdown.code(pipeline)); last run "
            + "\(ForgeMarkdown.code(runID.value)).</sub>\n"
    }

    /// When even the verdicts do not fit (a tiny limit): the marker, the verdict words and the run id.
    private func minimal(limit: Int, withMarker: Bool) -> String {
        var text = withMarker ? PullRequestComment.marker(pipeline: pipeline) + "\n" : ""
        text += gates.map { "\($0.gate.rawValue): \(PullRequestComment.verdictWord($0.state))" }
            .joined(separator: ", ")
        text += ". Run \(runID.value) (`pipe runs show \(runID.value)`).\n"
        return ForgeTextCut.cut(text, toScalars: limit)
    }

    /// One word for the gate's state, the same on every forge.
    static func verdictWord(_ state: ForgeGateReport.State) -> String {
        switch state {
        case .queued: return "queued"
        case .running: return "running"
        case .awaitingSignoff: return "awaiting sign-off"
        case .passed: return "passed"
        case .appFailed: return "failed"
        case .couldNotJudge: return "could not judge"
        case .cancelled: return "cancelled"
        case .superseded: return "superseded"
        }
    }

    private func count(_ text: String) -> Int { text.unicodeScalars.count }
}

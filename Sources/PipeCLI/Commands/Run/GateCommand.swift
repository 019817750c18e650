import Foundation
import PipeCore

/// `pipe gate <run> --for merge|release`: whether a run passes a gate, with each layer and why.
enum GateCommand {
    static let spec = CommandSpec(
        name: "gate",
        summary: "Judge a run against the merge or release gate; the exit code is the verdict.",
        discussion: """
            Each layer belongs to a gate: merge (the automated layers, which block a merge) or release (the manual \
            checklists, which must be signed before a release). A gate includes the gates before it: release \
            judges the merge layers too. A gate passes when each of its layers is passed, flaky (unless the \
            pipeline says `flaky: block`) or signed-off. The run is read from the run store, so sign-offs made \
            after the run count.

            Examples:
              pipe gate last --for merge
              pipe gate 20261129-1403 --for release --json
            """,
        arguments: [.optional("run", help: "A run id, a unique prefix of one, or `last` (the default).")],
        options: [
            .value("for", valueName: "merge|release", help: "The gate to judge (required)."),
            .flag("json", help: "Print the verdict as JSON."),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "The gate (and the gates before it) passes."),
                    .init("1", "A layer failed (tests, build, timeout, flaky under `flaky: block`) or was rejected."),
                    .init(
                        "2", "Invalid usage: no such run, no --for."),
                    .init(
                        "3",
                        "A layer could not be judged (host-config, infrastructure, plugin-error, cancelled, skipped, "
                            + "not run), or the run has not finished."),
                    .init("4", "Everything else passes; sign-offs are still pending."),
                ])
        ])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let arguments = context.arguments
        guard let gateText = arguments.string("for") else {
            throw UsageError(
                .custom("--for is required: --for merge or --for release"), command: arguments.command)
        }
        guard let gate = Gate(rawValue: gateText) else {
            throw UsageError(
                .invalidValue(option: "--for", value: gateText, expected: "merge or release"),
                command: arguments.command)
        }
        let session = try RunsSession(context)
        let run = try session.runArgument()
        let record = run.record
        var flakyPolicy = FlakyPolicy.allow
        var note: String?
        do {
            flakyPolicy = try RunPipelineFile.load(record, project: session.project, environment: context.environment)
                .flakyPolicy
        } catch {
            note = "note: \(error.description); judged with `flaky: allow`"
        }
        let evaluation = GateEvaluation.evaluate(gate, record: record, flakyPolicy: flakyPolicy)
        if let note { context.console.err(note + "\n") }
        if arguments.flag("json") {
            context.console.out(try RunsJSON.text(json(evaluation, record: record)))
        } else {
            context.console.out(text(evaluation, record: record))
        }
        return evaluation.verdict.exitCode
    }

    static func text(_ evaluation: GateEvaluation, record: RunRecord) -> String {
        var out = "run \(record.runID) · \(record.pipeline) · \(record.status.rawValue)\n"
        let width = evaluation.layers.map(\.name.count).max() ?? 0
        for layer in evaluation.layers {
            let mark: String
            switch layer.standing {
            case .passes: mark = "✓"
            case .fails: mark = "✗"
            case .couldNotJudge: mark = "!"
            case .pending: mark = "…"
            }
            var line = "  \(mark) \(layer.name.padding(toLength: width, withPad: " ", startingAt: 0))  "
            line += "\(layer.gate.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(layer.reason)"
            if layer.standing == .pending {
                line += " — pipe signoff \(record.runID) \(layer.name) --result pass|fail …"
            }
            out += line + "\n"
        }
        if let problem = evaluation.runProblem { out += "  ! \(problem)\n" }
        let mark = evaluation.verdict == .passed ? "✓" : (evaluation.verdict == .pendingSignoff ? "…" : "✗")
        out += "\(mark) \(evaluation.headline) (exit \(evaluation.verdict.exitCode))\n"
        return out
    }

    static func json(_ evaluation: GateEvaluation, record: RunRecord) -> [String: Any] {
        [
            "runID": record.runID, "pipeline": record.pipeline, "status": record.status.rawValue,
            "gate": evaluation.gate.rawValue, "gates": evaluation.gates.map(\.rawValue),
            "verdict": evaluation.verdict.rawValue, "exitCode": Int(evaluation.verdict.exitCode),
            "headline": evaluation.headline, "runProblem": RunsJSON.orNull(evaluation.runProblem),
            "layers": evaluation.layers.map { layer -> [String: Any] in
                [
                    "name": layer.name, "gate": layer.gate.rawValue,
                    "outcome": RunsJSON.orNull(layer.outcome?.rawValue),
                    "standing": layer.standing.rawValue, "reason": layer.reason,
                ]
            },
        ]
    }
}

import ChecklistPlugin
import Foundation
import PipeBasics
import PipeCore
import PipeGit

/// `pipe signoff <run> <layer> --result pass|fail --field k=v … --note … [--by who]`: records a tester's verdict on
/// a manual layer (a checklist) of a run.
enum SignoffCommand {
    static let spec = CommandSpec(
        name: "signoff",
        summary: "Record the result of a manual layer (a checklist) of a run: pass or fail, with its fields.",
        discussion: """
            The layer must be a manual one that was prepared (awaiting sign-off, or signed before). The fields the \
            pipeline declares under the layer are required: `fields` always, `fields-on-fail` when the result is \
            fail (for app-intents' shortcuts: os_version and app_build always, steps — the order of the actions \
            taken — when the action did not appear). A field the layer does not ask for is refused, so a typo is \
            never recorded as the required field. A refused sign-off records nothing and exits 2, listing every \
            problem. A checklist that needs a layer which recorded a release build checks that build: app_build \
            is filled in from its CFBundleVersion, another number is refused, and the sign-off records the build's \
            SHA-256 (`pipe verify`).

            Sign-offs are appended, never edited: a later one supersedes an earlier one, and both stay visible \
            (`pipe runs show`). Who signed is --by, else the git user.email of the project, else the login name. \
            After recording, artifacts/<run id>/summary.json is rewritten from the run store and the layer's \
            sign-offs are written to artifacts/<run id>/<layer>/signoffs.json.

            Examples:
              pipe signoff last shortcuts --result pass --field os_version=17.5 --field app_build='1.0 (42)' \\
                --note 'found in Shortcuts; valid and invalid IDs read well'
              pipe signoff 20261129-1403 shortcuts --result fail --field os_version=17.5 --field app_build=42 \\
                --field steps='install, launch once, open Shortcuts, search "check reading ID": not listed'
            """,
        arguments: [
            .required("run", help: "A run id, a unique prefix of one, or `last`."),
            .required("layer", help: "The manual layer to sign, e.g. shortcuts."),
        ],
        options: [
            .value("result", valueName: "pass|fail", help: "What the checks showed."),
            .keyValue("field", help: "A recorded fact: os_version=17.5, app_build=42, device='iPhone 15'…"),
            .value("note", valueName: "text", help: "What you saw, in a sentence or two."),
            .value("by", valueName: "who", help: "Who signs (default: git user.email, else the login name)."),
        ])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let arguments = context.arguments
        guard let resultText = arguments.string("result") else {
            throw UsageError(
                .custom("--result is required: --result pass or --result fail"), command: arguments.command)
        }
        guard let result = SignoffResult(rawValue: resultText) else {
            throw UsageError(
                .invalidValue(option: "--result", value: resultText, expected: "pass or fail"),
                command: arguments.command)
        }
        if let by = arguments.string("by"), by.trimmingCharacters(in: .whitespaces).isEmpty {
            throw UsageError(.custom("--by is empty; say who signs"), command: arguments.command)
        }
        let session = try RunsSession(context)
        let run = try session.run(arguments.argument("run") ?? "last")
        let layerName = arguments.argument("layer") ?? ""
        let fields = arguments.keyValues("field").map { (key: $0.key, value: $0.value) }

        let recorder = SignoffRecorder(
            project: session.project, store: try session.store, environment: context.environment)
        let checked: SignoffRecorder.CheckedSignoff
        do {
            checked = try recorder.check(run: run, layer: layerName, result: result, fields: fields)
        } catch {
            context.console.err("error: \(error.description)\n")
            return PipeExitCode.usage.rawValue
        }

        let signer = signer(arguments.string("by"), project: session.project, environment: context.environment)
        let note = arguments.string("note")?.trimmingCharacters(in: .whitespacesAndNewlines)
        let (recorded, updated) = try recorder.record(
            run: run, layer: layerName, result: result, checked: checked, fieldOrder: fields.map(\.key),
            signer: signer, note: note)

        var out = "\(result == .pass ? "✓" : "✗") \(layerName) \(recorded.decision.rawValue) by \(signer) at "
        out += "\(UTCTimestamp.iso8601(recorded.at)) (sign-off #\(recorded.id), run \(run.record.runID))\n"
        for key in fields.map(\.key) { if let value = checked.fields[key] { out += "    \(key): \(value)\n" } }
        if let note, !note.isEmpty { out += "    note: \(note)\n" }
        if let previous = run.signoffs.last(where: { $0.layer == layerName }) {
            out += "    supersedes #\(previous.id): \(previous.decision.rawValue) by \(previous.signedBy) at "
            out += "\(UTCTimestamp.iso8601(previous.at)) (kept)\n"
        }
        let release = GateEvaluation.evaluate(
            .release, record: updated.record, flakyPolicy: checked.pipeline.flakyPolicy)
        out += "\(release.headline) (`pipe gate \(run.record.runID) --for release` exits \(release.verdict.exitCode))\n"
        context.console.out(out)
        if let problem = recorder.forgeProblem { context.console.err("warning: \(problem)\n") }
        return 0
    }

    /// Who signs: `--by`, else the project's git `user.email`, else the login name.
    static func signer(_ by: String?, project: ProjectFolder, environment: [String: String]) -> String {
        if let by = by?.trimmingCharacters(in: .whitespaces), !by.isEmpty { return by }
        if let email = GitConfiguration.string("user.email", at: project.url) { return email }
        return RunCommand.requester(environment)
    }

    /// The note the store keeps (and shows as the layer's evidence): the tester's note, then the fields, so every
    /// reader of the run sees what it was checked on. The fields are also recorded, structured, in the
    /// `signoff` event and `signoffs.json`.
    static func storedNote(_ note: String?, fields: [String: String], order: [String]) -> String? {
        var parts: [String] = []
        if let note, !note.isEmpty { parts.append(note) }
        parts += order.compactMap { key in fields[key].map { "\(key)=\($0)" } }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}

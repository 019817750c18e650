import Foundation
import PipeBasics
import PipeCore

/// What the tester reads: the `checklist.json` of a manual layer, also rendered as `checklist.md`.
///
/// It says where to check (host, simulator UDID, name and runtime, or a physical device), what was installed and
/// launched there, the items in order, the fields to record, and the exact `pipe signoff` commands to run.
public struct ChecklistDocument: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int = ChecklistDocument.currentSchemaVersion
    public var runID: String
    public var pipeline: String
    public var layer: String
    public var gate: Gate
    public var on: ChecklistSettings.Target
    public var host: String
    public var simulator: SimulatorFacts?
    /// The app installed on the simulator (its path on the host), when the layer installs one.
    public var installed: String?
    /// The bundle launched on the simulator, with the process id `simctl launch` printed.
    public var launched: Launch?
    /// A step that could not be done (install or launch failed): the checks cannot start until it is fixed.
    public var problem: String?
    public var items: [String]
    public var fields: [String]
    public var fieldsOnFail: [String]
    /// `pipe signoff` command lines for a pass and for a fail, with placeholders to fill.
    public var signoffCommands: SignoffCommands
    public var preparedAt: String

    public struct SimulatorFacts: Codable, Sendable, Equatable {
        public var udid: String
        public var name: String
        public var runtime: String
        public var runtimeIdentifier: String

        public init(_ simulator: Simulator) {
            udid = simulator.udid
            name = simulator.name
            runtime = simulator.runtimeName
            runtimeIdentifier = simulator.runtimeIdentifier
        }
    }

    public struct Launch: Codable, Sendable, Equatable {
        public var bundleID: String
        public var processID: String?

        public init(bundleID: String, processID: String?) {
            self.bundleID = bundleID
            self.processID = processID
        }
    }

    public struct SignoffCommands: Codable, Sendable, Equatable {
        public var pass: String
        public var fail: String
    }

    public init(
        runID: String, pipeline: String, layer: String, gate: Gate, settings: ChecklistSettings, host: String,
        simulator: Simulator?, installed: String?, launched: Launch?, problem: String?, preparedAt: Date
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.layer = layer
        self.gate = gate
        self.on = settings.target
        self.host = host
        self.simulator = settings.target == .simulator ? simulator.map(SimulatorFacts.init) : nil
        self.installed = installed
        self.launched = launched
        self.problem = problem
        self.items = settings.items
        self.fields = settings.fields
        self.fieldsOnFail = settings.fieldsOnFail
        self.signoffCommands = SignoffCommands(
            pass: Self.signoffCommand(runID: runID, layer: layer, result: .pass, settings: settings),
            fail: Self.signoffCommand(runID: runID, layer: layer, result: .fail, settings: settings))
        self.preparedAt = UTCTimestamp.iso8601(preparedAt)
    }

    /// `pipe signoff <run> <layer> --result pass --field 'os_version=<os_version>' … --note '<what you saw>'`.
    public static func signoffCommand(
        runID: String, layer: String, result: SignoffResult, settings: ChecklistSettings
    ) -> String {
        var words = ["pipe", "signoff", runID, layer, "--result", result.rawValue]
        for field in settings.requirements.required(for: result) {
            words += ["--field", "\(field)=<\(field)>"]
        }
        words += ["--note", "<what you saw>"]
        return ShellQuote.join(words)
    }

    /// The JSON form (sorted keys, pretty).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// The Markdown form, for a person.
    public var markdown: String {
        var text = "# Checklist: \(layer) (\(pipeline), run \(runID))\n\n"
        text += "Gate: **\(gate.rawValue)** · prepared \(preparedAt)\n\n"
        text += "## Where\n\n"
        if on == .device {
            text += "- On a **physical device** (not a simulator): record which one, and its OS version.\n"
            text += "- Automated layers of this run ran on host `\(host)`.\n"
        } else {
            text += "- Host: `\(host)`\n"
            if let simulator {
                text += "- Simulator: \(simulator.name), \(simulator.runtime) — UDID `\(simulator.udid)`\n"
            }
        }
        if let installed { text += "- Installed: `\(installed)`\n" }
        if let launched {
            text += "- Launched: `\(launched.bundleID)`" + (launched.processID.map { " (pid \($0))" } ?? "") + "\n"
        } else if installed == nil && on == .simulator {
            text += "- Nothing was installed by the run: install and launch the build under test yourself.\n"
        }
        if let problem { text += "\n**Could not prepare:** \(problem)\n" }
        text += "\n## Checks, in order\n\n"
        for (index, item) in items.enumerated() { text += "\(index + 1). [ ] \(item)\n" }
        text += "\n## Record\n\n"
        if fields.isEmpty && fieldsOnFail.isEmpty { text += "No fields are required; a note is welcome.\n" }
        for field in fields { text += "- `\(field)` (always)\n" }
        for field in fieldsOnFail { text += "- `\(field)` (when the result is fail)\n" }
        text += "\nWrite down what you saw, not what you hoped: \"it appeared after I reopened the screen\" is an "
        text += "observation, not a fix.\n"
        text += "\n## Sign off\n\n"
        text += "```sh\n\(signoffCommands.pass)\n\(signoffCommands.fail)\n```\n"
        return text
    }
}

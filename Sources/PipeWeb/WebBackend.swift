import Foundation
import PipeChatOps
import PipeCore

/// What the page needs from the rest of Pipe beyond the run store: the checklist a pipeline declares, signing off
/// with `pipe signoff`'s rules, and the hosts. `pipe web serve` and the controller implement it with
/// `SignoffRecorder`, so a sign-off from the page reaches the gates and the forges exactly as one from the CLI.
///
/// Calls come from the server's worker threads, several at once, and must be quick: nothing here opens SSH.
public protocol WebBackend: AnyObject {
    /// The checklist of a manual layer as the run's pipeline declares it; its `problem` says why it could not be
    /// read (the layer is not a checklist, the pipeline file is gone).
    func checklist(run: StoredRun, layer: String) -> WebChecklist

    /// Checks and records a sign-off; a refusal throws `WebSignoffRefusal` and records nothing.
    func signoff(_ request: WebSignoffRequest) throws -> WebSignoffReceipt

    /// The hosts and what the store knows of them (no SSH).
    func hosts() throws -> [ChatHostReport]

    /// Where artifact paths (relative to the project folder) start.
    var projectDirectory: URL { get }
}

/// A manual layer's checklist: the items, where they are checked, the fields a sign-off gives.
public struct WebChecklist: Sendable, Equatable {
    public var items: [String]
    /// `simulator` or `device`.
    public var target: String
    public var fields: [String]
    public var fieldsOnFail: [String]
    /// Why the checklist could not be read, when it could not.
    public var problem: String?

    public init(
        items: [String] = [], target: String = "simulator", fields: [String] = [], fieldsOnFail: [String] = [],
        problem: String? = nil
    ) {
        self.items = items
        self.target = target
        self.fields = fields
        self.fieldsOnFail = fieldsOnFail
        self.problem = problem
    }
}

/// A sign-off sent from the page's form.
public struct WebSignoffRequest: Sendable, Equatable {
    public var runID: String
    public var layer: String
    /// `pass` or `fail`.
    public var result: String
    /// The fields in the form's order; empty values are left out, so a required one shows as missing.
    public var fields: [KeyValuePair]
    public var note: String?
    public var signedBy: String

    public init(
        runID: String, layer: String, result: String, fields: [KeyValuePair], note: String?, signedBy: String
    ) {
        self.runID = runID
        self.layer = layer
        self.result = result
        self.fields = fields
        self.note = note
        self.signedBy = signedBy
    }
}

/// What was recorded.
public struct WebSignoffReceipt: Sendable, Equatable {
    public var signoffID: Int64
    public var decision: String
    /// The release gate after the sign-off: `release gate passed`.
    public var releaseGate: String
    /// A problem writing the statuses for the forges (the sign-off itself is recorded).
    public var forgeProblem: String?

    public init(signoffID: Int64, decision: String, releaseGate: String, forgeProblem: String? = nil) {
        self.signoffID = signoffID
        self.decision = decision
        self.releaseGate = releaseGate
        self.forgeProblem = forgeProblem
    }
}

/// A sign-off refused, with every problem; nothing was recorded.
public struct WebSignoffRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [String]

    public init(_ problems: [String]) { self.problems = problems }

    public var description: String { problems.joined(separator: "; ") }
}

import Foundation

extension RunEvent {
    /// The event's kind, as stored and as printed by `--json`: `layer-started`, `test-finished`, `output`, ….
    public var typeName: String {
        switch self {
        case .runStarted: return "run-started"
        case .checkedOut: return "checked-out"
        case .hostConnected: return "host-connected"
        case .workspaceUploaded: return "workspace-uploaded"
        case .simulatorsListed: return "simulators-listed"
        case .simulatorChosen: return "simulator-chosen"
        case .layerStarted: return "layer-started"
        case .remoteCommand: return "remote-command"
        case .remoteProcessStarted: return "remote-process-started"
        case .testFinished: return "test-finished"
        case .output: return "output"
        case .layerFinished: return "layer-finished"
        case .artifactsPulled: return "artifacts-pulled"
        case .warning: return "warning"
        case .note: return "note"
        case .runFinished: return "run-finished"
        }
    }

    /// The layer the event belongs to, when it belongs to one.
    public var layerName: String? {
        switch self {
        case .layerStarted(let layer, _), .remoteCommand(let layer, _), .remoteProcessStarted(let layer, _, _),
            .testFinished(let layer, _),
            .output(let layer, _, _), .layerFinished(let layer, _, _), .artifactsPulled(let layer, _):
            return layer
        default:
            return nil
        }
    }

    /// The event's fields as a JSON object (sorted keys), for the store and for JSON-lines output.
    public var jsonPayload: String {
        let object: [String: Any]
        switch self {
        case .runStarted(let runID, let pipeline, let requestedBy):
            object = ["runID": runID, "pipeline": pipeline, "requestedBy": requestedBy]
        case .checkedOut(let ref, let commit, let workspace):
            object = ["ref": ref, "commit": commit, "workspace": workspace]
        case .hostConnected(let host, let endpoint, let keyType, let fingerprint):
            object = ["host": host, "endpoint": endpoint, "keyType": keyType, "fingerprint": fingerprint]
        case .workspaceUploaded(let host, let bytes, let seconds):
            object = ["host": host, "bytes": bytes, "seconds": seconds]
        case .simulatorsListed(let host, let available):
            object = ["host": host, "available": available]
        case .simulatorChosen(let host, let choice):
            object = [
                "host": host, "udid": choice.simulator.udid, "name": choice.simulator.name,
                "runtime": choice.simulator.runtimeName, "reason": choice.reason,
            ]
        case .layerStarted(let layer, let attempt):
            object = ["layer": layer, "attempt": attempt]
        case .remoteCommand(let layer, let command):
            object = ["layer": layer, "command": command]
        case .remoteProcessStarted(let layer, let host, let processGroup):
            object = ["layer": layer, "host": host, "processGroup": processGroup]
        case .testFinished(let layer, let result):
            var fields: [String: Any] = [
                "layer": layer, "identifier": result.identifier, "status": result.status.rawValue,
            ]
            if let duration = result.durationSeconds { fields["durationSeconds"] = duration }
            if let message = result.failureMessage { fields["failureMessage"] = message }
            if let location = result.failureLocation { fields["failureLocation"] = location }
            object = fields
        case .output(let layer, let stream, let text):
            object = ["layer": layer, "stream": stream.rawValue, "text": text]
        case .layerFinished(let layer, let attempt, let result):
            var fields: [String: Any] = [
                "layer": layer, "attempt": attempt, "outcome": result.outcome.rawValue, "evidence": result.evidence,
                "passedTests": result.passedTests, "failedTests": result.failedTests, "seconds": result.seconds,
            ]
            if let exit = result.exitText { fields["exit"] = exit }
            object = fields
        case .artifactsPulled(let layer, let paths):
            object = ["layer": layer, "paths": paths]
        case .warning(let message), .note(let message):
            object = ["message": message]
        case .runFinished(let summary):
            var fields: [String: Any] = [
                "runID": summary.runID, "status": summary.status.rawValue, "exitCode": summary.exitCode.rawValue,
                "layers": summary.layers.map { ["name": $0.name, "outcome": $0.outcome?.rawValue ?? "not-run"] },
                "pendingSignoffs": summary.pendingSignoffs, "summaryPath": summary.summaryPath,
                "seconds": summary.seconds,
            ]
            if let problem = summary.problem { fields["problem"] = problem }
            if !summary.reportPaths.isEmpty { fields["reports"] = summary.reportPaths }
            object = fields
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

extension RunEvent {
    /// The event with every text it carries passed through `redactor`.
    public func redacted(by redactor: SecretRedactor) -> RunEvent {
        guard !redactor.isEmpty else { return self }
        let r = redactor.redact as (String) -> String
        switch self {
        case .runStarted, .checkedOut, .hostConnected, .workspaceUploaded, .simulatorsListed, .simulatorChosen,
            .layerStarted, .remoteProcessStarted:
            return self
        case .remoteCommand(let layer, let command):
            return .remoteCommand(layer: layer, command: r(command))
        case .testFinished(let layer, let result):
            return .testFinished(layer: layer, result: redactor.redact(result))
        case .output(let layer, let stream, let text):
            return .output(layer: layer, stream: stream, text: r(text))
        case .layerFinished(let layer, let attempt, var result):
            result.evidence = redactor.redact(result.evidence)
            return .layerFinished(layer: layer, attempt: attempt, result: result)
        case .artifactsPulled:
            return self
        case .warning(let message):
            return .warning(r(message))
        case .note(let message):
            return .note(r(message))
        case .runFinished(var summary):
            summary.problem = summary.problem.map(r)
            return .runFinished(summary: summary)
        }
    }
}

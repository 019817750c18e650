/// The exit codes of `pipe`, documented in the README and `pipe --help`.
public enum PipeExitCode: Int32, Sendable {
    /// Every automated layer passed (or was flaky and the pipeline allows it).
    case success = 0
    /// A proven app failure: tests or build failed, a layer timed out, or flaky under `flaky: block`.
    case appFailure = 1
    /// Invalid usage or an invalid pipeline file; nothing ran.
    case usage = 2
    /// The run could not judge the app: host configuration, infrastructure or plugin failure.
    case environmentFailure = 3
    /// The user cancelled (Ctrl-C, SIGTERM): wins over everything else.
    case cancelled = 130

    /// The merge gate's verdict over the outcomes of the automated layers of one run.
    ///
    /// Order of precedence: cancelled (130) > app failure (1) > environment failure (3) > success (0).
    /// Manual layers that await a sign-off are listed by the caller, never failed here.
    public static func mergeVerdict(
        outcomes: [LayerOutcome], flakyPolicy: FlakyPolicy, userCancelled: Bool
    ) -> PipeExitCode {
        if userCancelled || outcomes.contains(.cancelled) { return .cancelled }
        let appFailed = outcomes.contains { $0.isAppFailure || ($0 == .flaky && flakyPolicy == .block) }
        if appFailed { return .appFailure }
        if outcomes.contains(where: { $0.isEnvironmentFailure }) { return .environmentFailure }
        if outcomes.contains(.rejected) { return .appFailure }
        return .success
    }
}

/// What a command line asks for, decided without printing or exiting so it can be unit-tested.
///
/// The caller prints `.help` and `.version` to stdout and exits 0, prints an `.error`'s description to stderr
/// and exits with its ``UsageError/exitCode`` (2), and runs the command named by `.run`'s path.
public enum ParseOutcome: Equatable, Sendable {
    /// Run a command: `path` holds the subcommand names below the root (`["runs", "list"]`; empty for the root).
    case run(path: [String], arguments: ParsedArguments)
    /// Show this help text (no trailing newline).
    case help(String)
    /// Show this version text, as given to ``CommandLineTool``.
    case version(String)
    /// The command line is wrong.
    case error(UsageError)
}

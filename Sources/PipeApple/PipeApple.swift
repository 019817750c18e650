/// `PipeApple`: what Pipe knows about Apple's tools, as pure functions over their text. No SSH, no I/O.
///
/// - Simulators: `SimctlListParser` (JSON and text listings of every Xcode era) and `SimulatorSelector`
///   (a deterministic choice with its reason, or a `SimulatorSelectionError` listing what the host has).
/// - The test command: `XcodebuildCommand` (typed arguments, quoted for a POSIX shell) and `ResultBundlePath`
///   (fresh for every run, layer and attempt).
/// - The run: `XcodebuildLogParser` (streaming events and bounded facts) and `XcodebuildOutcomeClassifier`
///   (the layer outcome with the lines that decided it).
/// - Results and versions: `XcresultSummary`, `XcresultTestResults`, `XcresulttoolVersion`, `XcodeVersion`.
///
/// Every format is tested against real output kept in `Tests/PipeAppleTests/Fixtures` (see its README).
public enum PipeAppleModule {}

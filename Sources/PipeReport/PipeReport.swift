/// `PipeReport`: reports of a run, as pure functions of its `RunRecord` (and, where the record keeps only the
/// last attempt, each attempt's test results).
public enum PipeReportModule {}

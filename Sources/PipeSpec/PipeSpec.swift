/// `PipeSpec`: pipeline files and the hosts file (YAML, read with libyaml) → the validated `PipeCore` model.
///
/// Entry points: `PipelineLoader` (`load` for runs, `validate` for `pipe validate`) and `HostsFileLoader`. Every
/// problem is a `SpecProblem` with `file:line:column` and key path; all of a file's problems are thrown together as
/// `SpecErrors`. The formats are described in `docs/pipeline-format.md`.
public enum PipeSpecModule {}

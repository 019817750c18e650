/// `PipeCore`: the model (pipelines, layers, outcomes, runs), the plugin protocol, the events and the engine.
///
/// It knows nothing of C libraries, YAML, SSH or HTTP: those parts implement the protocols declared here
/// (`RemoteHost`, `LayerPlugin`, `EventSink`) and are wired together by `PipeCLI`.
public enum PipeCoreModule {}

/// `PipeServer`: what runs pipelines without a person at the keyboard.
///
/// The cron evaluator (`CronExpression`, `ScheduleTiming`), the controller's config (`ControllerConfigLoader`), the
/// scheduler (`ScheduleEvaluator`), the commit watcher (`WatchPoller`, matching PipeCore's `BranchPattern`), the queue
/// consumer's choices (`DispatchPlanner`) and the daemon (`Controller`). It knows the run queue and the host leases
/// through PipeCore's protocols and runs pipelines through a `QueuedRunExecutor` that the command line provides, so it
/// knows nothing of SSH, SQLite or terminals.
public enum PipeServerModule {}

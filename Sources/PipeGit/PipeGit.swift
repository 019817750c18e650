/// `PipeGit`: see CONTRIBUTING.md for what this module owns.
public enum PipeGitModule {}

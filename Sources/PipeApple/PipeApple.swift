/// `PipeApple`: see CONTRIBUTING.md for what this module owns.
public enum PipeAppleModule {}

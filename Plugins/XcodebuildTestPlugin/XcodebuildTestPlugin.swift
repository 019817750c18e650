public enum XcodebuildTestPluginModule {}

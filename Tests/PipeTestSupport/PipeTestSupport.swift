public enum PipeTestSupportModule {}

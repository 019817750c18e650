/// `PipeStore`: the run history in one SQLite file (`SQLiteRunStore`, behind the core's `RunStore` protocol) and
/// the small SQLite wrapper it stands on (`SQLiteDatabase`); the only module that imports `CSQLite`.
public enum PipeStoreModule {}

/// Saves what the user entered: the app's storage, or a controllable store in tests.
public protocol RecordSaving: AnyObject {
    /// Returns once the record is saved; throws when it was not.
    func save(_ text: String) async throws
}

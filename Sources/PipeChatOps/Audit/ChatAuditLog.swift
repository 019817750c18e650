/// Where the endpoint writes every request it received, allowed or not. The controller implements it with the
/// run store; `JSONLinesAuditLog` writes a file.
///
/// Called from several threads at once; must be thread-safe and quick (it is called before the answer is sent).
public protocol ChatAuditLog: AnyObject {
    func record(_ entry: ChatAuditEntry) throws
}

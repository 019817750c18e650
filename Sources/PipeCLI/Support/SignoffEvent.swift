import Foundation

/// The `signoff` event appended to a run's log with every sign-off: the structured copy of its fields (the store's
/// sign-off row keeps who, when, the decision and the note).
struct SignoffEvent: Codable, Equatable {
    static let type = "signoff"

    var signoffID: Int64
    /// `pass` or `fail`, as typed.
    var result: String
    /// `signed-off` or `rejected`.
    var decision: String
    var signedBy: String
    var note: String?
    var fields: [String: String]
    var at: String
}

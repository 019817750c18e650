import PipeBasics
import PipeCore

/// The fields a manual layer's sign-off must give, and the check of one sign-off against them.
///
/// The pipeline declares them under the layer: `fields` always, `fields-on-fail` when the result is `fail` (the
/// app-intents `shortcuts` layer always needs `os_version` and `app_build`, and `steps` when the action did not
/// appear). A field the layer does not ask for is refused too, so a typo (`os-version`) is never recorded as if the
/// required field had been given.
public struct SignoffRequirements: Sendable, Equatable {
    public var fields: [String]
    public var fieldsOnFail: [String]
    /// Whether fields the layer does not declare are recorded too (a manual layer of an external plugin, whose
    /// fields Pipe cannot know); a checklist refuses them.
    public var acceptsUndeclaredFields: Bool

    public init(fields: [String], fieldsOnFail: [String], acceptsUndeclaredFields: Bool = false) {
        self.fields = fields
        self.fieldsOnFail = fieldsOnFail
        self.acceptsUndeclaredFields = acceptsUndeclaredFields
    }

    /// The fields required for `result`, in the pipeline's order.
    public func required(for result: SignoffResult) -> [String] {
        result == .fail ? fields + fieldsOnFail : fields
    }

    /// Checks the `key=value` fields of one sign-off of `layer`, in the order given; returns them as a dictionary,
    /// or throws every problem at once.
    public func validate(result: SignoffResult, fields given: [(key: String, value: String)], layer: String)
        throws(SignoffRefusal) -> [String: String]
    {
        var problems: [String] = []
        var values: [String: String] = [:]
        let known = fields + fieldsOnFail
        for (key, value) in given {
            if values[key] != nil {
                problems.append("field \(key) is given twice; give it once")
                continue
            }
            if !known.contains(key) && !acceptsUndeclaredFields {
                var message = "layer \(layer) asks for no field '\(key)'"
                if let near = EditDistance.nearest(to: key, in: known) { message += " (did you mean \(near)?)" }
                message += known.isEmpty ? "; it asks for none" : "; it asks for: \(describe())"
                problems.append(message)
                continue
            }
            if value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                problems.append("field \(key) is empty; say what you saw (or 'none')")
                continue
            }
            values[key] = value
        }
        let givenKeys = Set(given.map(\.key))
        let missingAlways = fields.filter { !givenKeys.contains($0) }
        if !missingAlways.isEmpty {
            problems.append(
                "missing \(missingAlways.joined(separator: ", ")): every sign-off of \(layer) must give "
                    + missingAlways.map { "--field \($0)=…" }.joined(separator: " "))
        }
        if result == .fail {
            let missingOnFail = fieldsOnFail.filter { !givenKeys.contains($0) }
            if !missingOnFail.isEmpty {
                problems.append(
                    "missing \(missingOnFail.joined(separator: ", ")): a fail sign-off of \(layer) must also give "
                        + missingOnFail.map { "--field \($0)=…" }.joined(separator: " "))
            }
        }
        guard problems.isEmpty else { throw SignoffRefusal(layer: layer, problems: problems) }
        return values
    }

    /// `os_version, app_build, steps (on fail)`.
    public func describe() -> String {
        (fields + fieldsOnFail.map { "\($0) (on fail)" }).joined(separator: ", ")
    }
}

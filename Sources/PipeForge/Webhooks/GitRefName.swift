/// Git's rules for ref names (`git check-ref-format`), applied to names a payload brings: a name git would refuse
/// is refused here with the rule it breaks, before it reaches a fetch, a path or a message.
public enum GitRefName {
    /// Why the full ref `ref` (`refs/heads/main`) is not valid, or `nil` when it is.
    public static func problem(withFullRef ref: String) -> String? {
        guard ref.hasPrefix("refs/") else { return "does not start with refs/" }
        return problem(withName: ref)
    }

    /// Why a branch name (`main`, `feature/x`) is not valid, or `nil` when it is.
    public static func problem(withBranch name: String) -> String? {
        if name.hasPrefix("-") { return "starts with '-'" }
        if name == "HEAD" { return "is HEAD" }
        return problem(withName: name)
    }

    private static func problem(withName name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > WebhookLimits.refBytes {
            return "is \(name.utf8.count) bytes, more than \(WebhookLimits.refBytes)"
        }
        if name == "@" { return "is '@'" }
        if name.contains("..") { return "holds '..'" }
        if name.contains("@{") { return "holds '@{'" }
        if name.hasPrefix("/") || name.hasSuffix("/") || name.contains("//") {
            return "has a leading, trailing or doubled '/'"
        }
        if name.hasSuffix(".") { return "ends with '.'" }
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { return "holds a control character" }
            if " ~^:?*[\\".unicodeScalars.contains(scalar) {
                return "holds '\(scalar == " " ? "a space" : "\(scalar)")'"
            }
        }
        for component in name.split(separator: "/") {
            if component.hasPrefix(".") { return "has a part starting with '.'" }
            if component.hasSuffix(".lock") { return "has a part ending with '.lock'" }
        }
        return nil
    }
}

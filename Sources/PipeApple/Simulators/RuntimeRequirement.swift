/// The runtime a pipeline asks for: `latest` (the default), `17.5` / `iOS 17.5` (that version, or a patch of it:
/// `18.0` accepts `18.0.1`), or `>=17` (that version or newer). When several runtimes qualify, the newest wins.
public enum RuntimeRequirement: Equatable, CustomStringConvertible, Sendable {
    case latest
    case exactly(NumericVersion)
    case atLeast(NumericVersion)

    /// Reads the text of `simulator.runtime`; a platform prefix (`iOS 17.5`) must name `platform`.
    ///
    /// - Throws: `SimulatorSelectionError` for text that is none of the accepted forms or names another platform.
    public static func parse(_ text: String?, platform: String) throws -> RuntimeRequirement {
        let trimmed = (text ?? "").trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.lowercased() == "latest" { return .latest }
        var rest = Substring(trimmed)
        if let first = rest.first, first.isLetter {
            // `iOS 17.5`, `iOS >=17`, `iOS latest`: a platform word, then the requirement.
            let word = rest.prefix { !$0.isWhitespace && $0 != ">" }
            let requirement = rest.dropFirst(word.count).drop { $0.isWhitespace }
            guard !requirement.isEmpty else {
                throw SimulatorSelectionError(.invalidRuntime(trimmed), request: trimmed, available: [])
            }
            guard SimulatorRuntimeKey.family(String(word)) == SimulatorRuntimeKey.family(platform) else {
                throw SimulatorSelectionError(
                    .runtimeForOtherPlatform(runtime: trimmed, platform: platform), request: trimmed, available: [])
            }
            if requirement.lowercased() == "latest" { return .latest }
            rest = requirement
        }
        var atLeast = false
        if rest.hasPrefix(">=") {
            atLeast = true
            rest = rest.dropFirst(2).drop { $0.isWhitespace }
        }
        guard let version = NumericVersion(String(rest)) else {
            throw SimulatorSelectionError(.invalidRuntime(trimmed), request: trimmed, available: [])
        }
        return atLeast ? .atLeast(version) : .exactly(version)
    }

    public var description: String {
        switch self {
        case .latest: return "latest"
        case .exactly(let version): return version.description
        case .atLeast(let version): return ">=\(version)"
        }
    }

    /// Whether an installed runtime version qualifies (before "newest wins" narrows the choice).
    func accepts(_ version: NumericVersion?) -> Bool {
        switch self {
        case .latest: return true
        case .exactly(let wanted): return version?.matches(prefix: wanted) ?? false
        case .atLeast(let minimum): return version.map { $0 >= minimum } ?? false
        }
    }
}

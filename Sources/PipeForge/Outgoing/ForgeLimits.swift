/// The sizes each forge accepts, counted in Unicode scalars (what the forges' Ruby and Go code count as
/// characters). Sources: Tests/ForgeContract/github/LIMITS.md, gitlab/API.md, gitea/API-NOTES.md.
public struct ForgeLimits: Sendable, Equatable {
    /// A commit status's `description`: GitHub answers 422 past 140, GitLab documents 255, Gitea states none.
    public var statusDescription: Int
    /// A pull request comment's body: GitHub 65536 (422 past it), GitLab 1,000,000; Gitea states none, and a
    /// comment past GitHub's size is no longer read by anyone, so the same bound.
    public var commentBody: Int
    /// `target_url`: GitLab documents 255; the others state none.
    public var targetURL: Int?

    public static func of(_ forge: ForgeKind) -> ForgeLimits {
        switch forge {
        case .github: return ForgeLimits(statusDescription: 140, commentBody: 65_536, targetURL: nil)
        case .gitea: return ForgeLimits(statusDescription: 255, commentBody: 65_536, targetURL: nil)
        case .gitlab: return ForgeLimits(statusDescription: 255, commentBody: 1_000_000, targetURL: 255)
        }
    }

    /// GitHub check runs (`checks/create`, `checks/update`): `output.summary` and `output.text` 65535 characters,
    /// 50 annotations a request, annotation `title` 255 characters and `message` 64 KB (taken as 64,000 bytes).
    public enum CheckRun {
        public static let summary = 65_535
        public static let text = 65_535
        public static let annotationsPerRequest = 50
        public static let annotationTitle = 255
        public static let annotationMessageBytes = 64_000
    }
}

/// Cutting text to a limit without splitting a character, and with an ellipsis that says it was cut.
public enum ForgeTextCut {
    /// `text` within `limit` Unicode scalars; when cut, it ends in `…` on a character boundary.
    public static func cut(_ text: String, toScalars limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        guard limit > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let size = character.unicodeScalars.count
            if used + size > limit - 1 { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    /// `text` within `limit` UTF-8 bytes, cut the same way (annotation messages are bounded in bytes).
    public static func cut(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let ellipsis = "…".utf8.count
        guard limit >= ellipsis else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > limit - ellipsis { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    /// One line of plain text: control characters and line breaks become spaces, runs of spaces one space, and
    /// the bidirectional overrides are dropped (so a reason cannot reorder what is shown around it).
    public static func oneLine(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x202A...0x202E, 0x2066...0x2069: continue
            case 0x00...0x20, 0x7F...0x9F:
                if !lastWasSpace { result.append(" ") }
                lastWasSpace = true
            default:
                result.append(scalar)
                lastWasSpace = false
            }
        }
        var line = String(result)
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}

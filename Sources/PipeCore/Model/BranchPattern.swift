/// A branch name pattern of a watch: `main`, `release/*` (one level), `feature/**` (any depth), `v?.x`.
///
/// `*` matches any text without `/`, `**` any text, `?` one character other than `/`; everything else matches
/// itself. Branch names are compared without `refs/heads/`.
public struct BranchPattern: Sendable, Equatable, CustomStringConvertible {
    public let pattern: String
    private let tokens: [Token]

    private enum Token: Equatable {
        case literal(Character)
        case anyInSegment
        case anyAcrossSegments
        case oneCharacter
    }

    public init(_ pattern: String) {
        self.pattern = pattern
        var tokens: [Token] = []
        let characters = Array(pattern)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "*" {
                if index + 1 < characters.count, characters[index + 1] == "*" {
                    tokens.append(.anyAcrossSegments)
                    index += 2
                    continue
                }
                tokens.append(.anyInSegment)
            } else if character == "?" {
                tokens.append(.oneCharacter)
            } else {
                tokens.append(.literal(character))
            }
            index += 1
        }
        self.tokens = tokens
    }

    public var description: String { pattern }

    /// Whether `branch` matches the whole pattern.
    public func matches(_ branch: String) -> Bool {
        let text = Array(branch)
        // memo[t][p]: whether text[t...] matches tokens[p...]; patterns and names are short.
        var memo = [[Bool?]](repeating: [Bool?](repeating: nil, count: tokens.count + 1), count: text.count + 1)
        func match(_ t: Int, _ p: Int) -> Bool {
            if let known = memo[t][p] { return known }
            let result: Bool
            if p == tokens.count {
                result = t == text.count
            } else {
                switch tokens[p] {
                case .literal(let character): result = t < text.count && text[t] == character && match(t + 1, p + 1)
                case .oneCharacter: result = t < text.count && text[t] != "/" && match(t + 1, p + 1)
                case .anyInSegment:
                    result = match(t, p + 1) || (t < text.count && text[t] != "/" && match(t + 1, p))
                case .anyAcrossSegments: result = match(t, p + 1) || (t < text.count && match(t + 1, p))
                }
            }
            memo[t][p] = result
            return result
        }
        return match(0, 0)
    }
}

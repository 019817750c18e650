/// A dotted version compared number by number, so `17.10` is newer than `17.9` and `18.0.1` newer than `18.0`.
///
/// Missing trailing components count as zero when comparing (`17` == `17.0`); `matches(prefix:)` is the looser
/// test used for runtime requests, where `18.0` accepts an installed `18.0.1`.
public struct NumericVersion: Comparable, Hashable, CustomStringConvertible, Sendable {
    /// The numbers between the dots, e.g. `[18, 0, 1]`.
    public let components: [Int]

    /// Reads `17`, `17.5` or `18.0.1`; `nil` for anything else (letters, empty parts, signs, spaces).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 6 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(part)
            else { return nil }
            numbers.append(number)
        }
        components = numbers
    }

    public init(components: [Int]) {
        self.components = components
    }

    public var description: String { components.map(String.init).joined(separator: ".") }

    /// Whether this version starts with every component of `prefix`: `18.0.1` matches `18.0` and `18`, not `18.1`.
    public func matches(prefix: NumericVersion) -> Bool {
        prefix.components.count <= components.count
            && zip(prefix.components, components).allSatisfy { $0 == $1 }
    }

    public static func < (lhs: NumericVersion, rhs: NumericVersion) -> Bool {
        let count = max(lhs.components.count, rhs.components.count)
        for index in 0..<count {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: NumericVersion, rhs: NumericVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    public func hash(into hasher: inout Hasher) {
        var trimmed = components
        while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }
}

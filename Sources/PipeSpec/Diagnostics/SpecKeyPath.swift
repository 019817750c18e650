/// Where a value sits in a YAML document, written as users read it: `layers.logic.only-testing[1]`.
public struct SpecKeyPath: Sendable, Equatable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Equatable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public func appending(_ key: String) -> SpecKeyPath { SpecKeyPath(components + [.key(key)]) }

    public func appending(_ index: Int) -> SpecKeyPath { SpecKeyPath(components + [.index(index)]) }

    /// The last key, e.g. `timeout` for `layers.logic.timeout`.
    public var lastKey: String? {
        for component in components.reversed() {
            if case .key(let key) = component { return key }
        }
        return nil
    }

    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

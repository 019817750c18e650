/// One node of a parsed YAML document, with where it starts and ends in the file.
///
/// Mappings keep their entries in file order and keep repeated keys (see `duplicateKeys()`), so the decoders can
/// report every duplicate with its position instead of silently keeping one.
public struct YAMLNode: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping([YAMLMappingEntry])
    }

    public var content: Content
    /// The first character of the node (for a quoted scalar: the opening quote).
    public var start: SourceMark
    /// Just past the node's last character.
    public var end: SourceMark

    public init(_ content: Content, start: SourceMark, end: SourceMark) {
        self.content = content
        self.start = start
        self.end = end
    }

    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    public var mapping: [YAMLMappingEntry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }

    /// The scalar text of a mapping key, or `nil` for a key that is a list or a mapping.
    public var keyText: String? { scalar?.text }

    /// How many nodes this subtree holds (itself included); used to bound alias expansion.
    public var nodeCount: Int {
        switch content {
        case .scalar: return 1
        case .sequence(let items): return items.reduce(1) { $0 + $1.nodeCount }
        case .mapping(let entries): return entries.reduce(1) { $0 + $1.key.nodeCount + $1.value.nodeCount }
        }
    }

    /// Every key that repeats an earlier key of the same mapping, anywhere in the tree, in file order.
    ///
    /// - Parameter path: the path of this node, used to name where each duplicate is.
    public func duplicateKeys(at path: SpecKeyPath = SpecKeyPath()) -> [YAMLDuplicateKey] {
        var found: [YAMLDuplicateKey] = []
        collectDuplicateKeys(at: path, into: &found)
        return found
    }

    private func collectDuplicateKeys(at path: SpecKeyPath, into found: inout [YAMLDuplicateKey]) {
        switch content {
        case .scalar:
            return
        case .sequence(let items):
            for (index, item) in items.enumerated() {
                item.collectDuplicateKeys(at: path.appending(index), into: &found)
            }
        case .mapping(let entries):
            var firstByKey: [String: YAMLNode] = [:]
            for entry in entries {
                guard let key = entry.key.keyText else { continue }
                if let first = firstByKey[key] {
                    found.append(YAMLDuplicateKey(path: path.appending(key), first: first.start, repeated: entry.key))
                } else {
                    firstByKey[key] = entry.key
                    entry.value.collectDuplicateKeys(at: path.appending(key), into: &found)
                }
            }
        }
    }
}

/// One `key: value` pair of a mapping.
public struct YAMLMappingEntry: Sendable, Equatable {
    public var key: YAMLNode
    public var value: YAMLNode

    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}

/// A key written twice in one mapping.
public struct YAMLDuplicateKey: Sendable, Equatable {
    public var path: SpecKeyPath
    /// Where the key was first written.
    public var first: SourceMark
    /// The repeated key.
    public var repeated: YAMLNode
}

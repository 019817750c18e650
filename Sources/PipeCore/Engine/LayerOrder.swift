/// Orders layers so each comes after the layers it `needs`, keeping the file's order otherwise.
public enum LayerOrder {
    /// A stable topological order. The spec loader already refused cycles and unknown names; a cycle that still
    /// reaches here keeps the remaining layers in file order rather than looping.
    public static func sorted(_ layers: [LayerSpec]) -> [LayerSpec] {
        var placed = Set<String>()
        var result: [LayerSpec] = []
        var remaining = layers
        while !remaining.isEmpty {
            guard let index = remaining.firstIndex(where: { $0.needs.allSatisfy(placed.contains) }) else {
                result += remaining
                break
            }
            let layer = remaining.remove(at: index)
            placed.insert(layer.name)
            result.append(layer)
        }
        return result
    }
}

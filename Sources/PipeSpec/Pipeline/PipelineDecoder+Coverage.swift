import Foundation
import PipeCore

extension PipelineDecoder {
    static let coverageKeys = PipelineShape.coverage.keyNames
    /// The plugin kinds that measure coverage.
    static let coveragePlugins = ["xcodebuild-test"]

    /// A layer's `coverage:`: `true` to measure only, or `{ minimum: 80%, targets: [Reader] }`.
    func decodeCoverage(_ layer: MappingReader, plugin: String?) -> CoverageRequirement? {
        guard let node = layer.value("coverage") else { return nil }
        let path = layer.path.appending("coverage")
        if let plugin, !Self.coveragePlugins.contains(plugin) {
            problems.error(
                path, at: node.start,
                "a \(plugin) layer does not measure coverage; remove `coverage:` or use it on an xcodebuild-test layer")
            return nil
        }
        if node.scalar != nil {
            guard let on = layer.reader.boolean(node, at: path) else { return nil }
            return on ? CoverageRequirement() : nil
        }
        guard
            let mapping = layer.reader.mapping(
                node, at: path, expected: "true, or a mapping with `minimum` (e.g. 80%) and `targets`")
        else { return nil }
        mapping.rejectUnknownKeys(allowed: Self.coverageKeys)
        var requirement = CoverageRequirement()
        if let minimum = mapping.value("minimum") {
            requirement.minimumPercent = percent(minimum, at: path.appending("minimum"), reader: mapping.reader)
        }
        requirement.targets = (mapping.read("targets", { $0.strings }) ?? []).map(\.text)
        return requirement
    }

    /// `80%`, `80` or `72.5%`: a percentage from 0 to 100.
    private func percent(_ node: YAMLNode, at path: SpecKeyPath, reader: SpecReader) -> Double? {
        let expected = "a percentage from 0 to 100, e.g. 80%"
        guard let scalar = reader.scalar(node, at: path, expected: expected) else { return nil }
        let value = reader.interpolate(scalar, node: node, at: path)
        guard value.isComplete else { return nil }
        var text = value.text.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("%") { text = String(text.dropLast()).trimmingCharacters(in: .whitespaces) }
        guard let number = Double(text), number.isFinite, (0...100).contains(number) else {
            problems.error(path, at: node.start, "expected \(expected), found '\(value.text)'")
            return nil
        }
        return number
    }
}

/// Gathers the problems of one file while it is decoded, so that all of them are reported together.
final class ProblemCollector {
    let file: String
    let source: SourceText
    private(set) var problems: [SpecProblem] = []

    init(file: String, source: SourceText) {
        self.file = file
        self.source = source
    }

    var hasErrors: Bool { problems.contains { $0.severity == .error } }

    func error(_ path: SpecKeyPath, at mark: SourceMark?, _ message: String) {
        problems.append(SpecProblem(file: file, mark: mark, keyPath: path.description, message: message))
    }

    func warning(_ path: SpecKeyPath, at mark: SourceMark?, _ message: String) {
        problems.append(
            SpecProblem(severity: .warning, file: file, mark: mark, keyPath: path.description, message: message))
    }

    func append(contentsOf errors: SpecErrors) {
        problems.append(contentsOf: errors.problems)
    }

    /// Reports every key written twice in one mapping.
    func reportDuplicateKeys(in root: YAMLNode) {
        for duplicate in root.duplicateKeys() {
            error(
                duplicate.path, at: duplicate.repeated.start,
                "duplicate key (first written at line \(duplicate.first.line), column \(duplicate.first.column)); "
                    + "keep only one")
        }
    }
}

import PipeCore

/// Reports a plugin's `SettingCheck` problems at the YAML node each names: a list entry, a mapping's value, or
/// the setting as a whole.
enum SettingCheckReport {
    static func report(
        _ settingProblems: [SettingProblem], in node: YAMLNode, at path: SpecKeyPath, problems: ProblemCollector
    ) {
        for problem in settingProblems {
            switch problem.place {
            case .value:
                problems.error(path, at: node.start, problem.message)
            case .entry(let index):
                if case .sequence(let items) = node.content, items.indices.contains(index) {
                    problems.error(path.appending(index), at: items[index].start, problem.message)
                } else {
                    problems.error(path, at: node.start, problem.message)
                }
            case .key(let key):
                if case .mapping(let entries) = node.content,
                    let entry = entries.first(where: { $0.key.keyText == key })
                {
                    problems.error(path.appending(key), at: entry.value.start, problem.message)
                } else {
                    problems.error(path, at: node.start, problem.message)
                }
            }
        }
    }
}

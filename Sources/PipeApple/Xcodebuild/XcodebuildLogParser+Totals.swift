extension XcodebuildLogParser {
    /// `Test Suite 'All tests' started at …` / `passed at …` / `failed at …`, and OCUnit's `finished at …`: the
    /// depth that tells a run's outermost `Executed …` total from those of nested suites.
    func readTestSuiteLine(_ line: String) {
        let body = line.dropFirst("Test Suite '".count)
        guard let close = body.range(of: "' ", options: .backwards) else { return }
        let name = String(body[..<close.lowerBound])
        let verb = body[close.upperBound...]
        if verb.hasPrefix("started") {
            facts.sawSuite = true
            if facts.openSuites.count < XcodebuildLogFacts.openSuitesLimit { facts.openSuites.append(name) }
            facts.outermostSuiteJustEnded = false
        } else if verb.hasPrefix("passed") || verb.hasPrefix("failed") || verb.hasPrefix("finished") {
            if let index = facts.openSuites.lastIndex(of: name) {
                facts.openSuites.removeSubrange(index...)
            } else if !facts.openSuites.isEmpty {
                facts.openSuites.removeLast()
            }
            facts.outermostSuiteJustEnded = facts.openSuites.isEmpty
        }
    }

    /// `Executed 922 tests, with 1 failure (0 unexpected) in 23.7 (24.1) seconds`, also
    /// `with 1 test skipped and 0 failures`: kept when it closes a run's outermost suite (or when the log has no
    /// suite lines at all).
    func readExecutedLine(_ line: String) {
        let text = line.drop { $0 == " " || $0 == "\t" }
        guard text.hasPrefix("Executed "), facts.outermostSuiteJustEnded || !facts.sawSuite else { return }
        let words = text.split(separator: " ")
        guard words.count > 2, let executed = Int(words[1]) else { return }
        var failures = 0
        for (index, word) in words.enumerated() where index > 0 {
            guard word.hasPrefix("failure"), words[index - 1] != "expected", let count = Int(words[index - 1]) else {
                continue
            }
            failures = count
            break
        }
        facts.outermostSuiteJustEnded = false
        facts.statedTotals.append(.init(executed: executed, failures: failures, line: String(text)))
    }
}

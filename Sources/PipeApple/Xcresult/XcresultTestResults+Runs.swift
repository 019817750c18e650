import PipeCore

extension XcresultTestResults {
    /// A test case with the result of each of its runs, when the bundle recorded repetitions (`Repetition` nodes:
    /// `First Run`, `Retry 1`, … with `-retry-tests-on-failure`; `apple-formats.md` 5.3).
    public struct TestCaseRuns: Equatable, Sendable {
        /// The case's own result, as `testCases` gives it.
        public var result: TestCaseResult
        /// Each run in order, with its failure message; empty when the case ran once.
        public var runs: [TestCaseResult]

        /// Failed on a run, passed in the end: flaky, not passed.
        public var isFlaky: Bool {
            result.status == .passed && runs.contains { $0.status == .failed }
        }
    }

    /// Every test case of `testCases`, in the same order, with its runs.
    public var testCaseRuns: [TestCaseRuns] {
        var nodes: [Node] = []
        func visit(_ node: Node) {
            if node.nodeType == "Test Case" {
                if Self(testNodes: [node]).testCases.count == 1 { nodes.append(node) }
                return
            }
            node.children?.forEach(visit)
        }
        testNodes.forEach(visit)
        return zip(testCases, nodes).map { result, node in
            TestCaseRuns(result: result, runs: Self.runs(of: node, identifier: result.identifier))
        }
    }

    init(devices: [XcresultSummary.Device] = [], testNodes: [Node]) {
        self.devices = devices
        self.testNodes = testNodes
    }

    /// The `Repetition` nodes below a case (also under `Arguments` for parameterized tests), each read as a test
    /// case of its own so that it gets the same status, duration and failure message rules.
    private static func runs(of node: Node, identifier: String) -> [TestCaseResult] {
        var runs: [TestCaseResult] = []
        func visit(_ child: Node) {
            if child.nodeType == "Repetition" {
                var asCase = child
                asCase.nodeType = "Test Case"
                asCase.nodeIdentifier = identifier
                runs += Self(testNodes: [asCase]).testCases
                return
            }
            if child.nodeType == "Failure Message" { return }
            child.children?.forEach(visit)
        }
        node.children?.forEach(visit)
        return runs
    }
}

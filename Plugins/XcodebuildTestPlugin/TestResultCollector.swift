import PipeApple
import PipeCore

/// Collects the tests a log reports, once each, in the order they ended.
///
/// In serial runs a Swift Testing test can be reported twice (by the testing library and by xcodebuild): the
/// first report names it; a later one only fills in what the first lacked (a failure message, a duration).
struct TestResultCollector {
    private(set) var results: [TestCaseResult] = []
    private var indexByIdentifier: [String: Int] = [:]

    /// Records an event; returns the test result when it is the first report of a finished test.
    mutating func record(_ event: XcodebuildLogEvent) -> TestCaseResult? {
        guard case .testFinished(let result, _) = event else { return nil }
        if let index = indexByIdentifier[result.identifier] {
            if results[index].failureMessage == nil { results[index].failureMessage = result.failureMessage }
            if results[index].durationSeconds == nil { results[index].durationSeconds = result.durationSeconds }
            return nil
        }
        indexByIdentifier[result.identifier] = results.count
        results.append(result)
        return result
    }
}

import PipeCore
import XCTest

final class CommitKeyTests: XCTestCase {
    private let sha = "0123456789ABCDEF0123456789abcdef01234567"

    func testOneCommitOfOnePipelineHasOneKeyWhoeverSawIt() {
        XCTAssertEqual(
            QueueRequest.commitKey(pipeline: "app-intents", sha: sha, parameters: [:]),
            "commit:app-intents:0123456789abcdef0123456789abcdef01234567")
    }

    func testParametersAreOrderFreeButPartOfTheKey() {
        let one = QueueRequest.commitKey(pipeline: "p", sha: sha, parameters: ["a": "1", "b": "2"])
        XCTAssertEqual(one, QueueRequest.commitKey(pipeline: "p", sha: sha, parameters: ["b": "2", "a": "1"]))
        XCTAssertNotEqual(one, QueueRequest.commitKey(pipeline: "p", sha: sha, parameters: ["a": "1", "b": "3"]))
        XCTAssertNotEqual(one, QueueRequest.commitKey(pipeline: "p", sha: sha, parameters: [:]))
        XCTAssertNotEqual(
            QueueRequest.commitKey(pipeline: "p", sha: sha, parameters: ["a": "1\u{0}b=2"]), one,
            "a value cannot forge another parameter")
        XCTAssertTrue(one.hasPrefix("commit:p:\(sha.lowercased()):"))
    }
}

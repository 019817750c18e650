import PipeGit
import XCTest

/// Asserts that `expression` throws a `GitError` (not any error) and hands it over for the case to be checked.
func assertThrowsGitError<T>(
    _ expression: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line,
    _ check: (GitError) -> Void
) {
    XCTAssertThrowsError(try expression(), file: file, line: line) { error in
        guard let gitError = error as? GitError else {
            XCTFail("expected a GitError, got \(type(of: error)): \(error)", file: file, line: line)
            return
        }
        check(gitError)
    }
}

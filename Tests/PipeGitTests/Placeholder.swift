import XCTest

final class PipeGitTestsPlaceholder: XCTestCase {}

import XCTest

final class PipeSSHTestsPlaceholder: XCTestCase {}

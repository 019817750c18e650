import XCTest

final class PipeCLITestsPlaceholder: XCTestCase {}

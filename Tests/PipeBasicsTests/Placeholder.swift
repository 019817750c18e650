import XCTest

final class PipeBasicsTestsPlaceholder: XCTestCase {}

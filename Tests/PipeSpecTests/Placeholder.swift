import XCTest

final class PipeSpecTestsPlaceholder: XCTestCase {}

import XCTest

final class PipeAppleTestsPlaceholder: XCTestCase {}

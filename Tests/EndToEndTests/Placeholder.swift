import XCTest

final class EndToEndTestsPlaceholder: XCTestCase {}

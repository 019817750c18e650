import XCTest

final class PipeCoreTestsPlaceholder: XCTestCase {}

import XCTest

final class PipeStoreTestsPlaceholder: XCTestCase {}

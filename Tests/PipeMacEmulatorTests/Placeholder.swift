import XCTest

final class PipeMacEmulatorTestsPlaceholder: XCTestCase {}

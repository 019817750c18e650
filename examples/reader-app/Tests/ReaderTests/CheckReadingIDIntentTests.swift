import Reader
import XCTest

/// Layer 2: the intent, called the way the system calls it (`perform()`), for its value and its typed error.
final class CheckReadingIDIntentTests: XCTestCase {
    func testPerformReturnsTheNormalizedID() async throws {
        let result = try await CheckReadingIDIntent(readingID: " book_7 ").perform()
        XCTAssertEqual(result.value, "book_7")
    }

    func testPerformReturnsWhatTheRuleReturns() async throws {
        for input in ["a", "  Reader-2024_01 ", String(repeating: "z", count: 32)] {
            let result = try await CheckReadingIDIntent(readingID: input).perform()
            XCTAssertEqual(result.value, try ReadingID.normalize(input), "for input \(String(reflecting: input))")
        }
    }

    func testParameterSetAfterCreationIsUsed() async throws {
        var intent = CheckReadingIDIntent()
        intent.readingID = "\tnovel-12\n"
        let result = try await intent.perform()
        XCTAssertEqual(result.value, "novel-12")
    }

    func testPerformThrowsTheTypedErrorForAnEmptyID() async {
        await assertPerformRejects("   ", with: .empty)
    }

    func testPerformThrowsTheTypedErrorForAnInnerSpace() async {
        await assertPerformRejects("book 7", with: .invalidCharacter(" "))
    }

    func testPerformThrowsTheTypedErrorForATooLongID() async {
        await assertPerformRejects(String(repeating: "a", count: 33), with: .tooLong(count: 33))
    }

    func testPerformThrowsTheTypedErrorForAnIllegalCharacter() async {
        await assertPerformRejects("本-7", with: .invalidCharacter("本"))
    }

    private func assertPerformRejects(
        _ readingID: String, with expected: ReadingIDError, file: StaticString = #filePath, line: UInt = #line
    ) async {
        do throws(ReadingIDError) {
            let result = try await CheckReadingIDIntent(readingID: readingID).perform()
            XCTFail(
                "\(String(reflecting: readingID)) returned \(String(describing: result.value))", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, "for input \(String(reflecting: readingID))", file: file, line: line)
        }
    }
}

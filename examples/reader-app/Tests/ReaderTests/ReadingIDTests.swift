import Reader
import XCTest

/// Layer 1: the pure rule. Each rejection asserts the error's type (statically: `throws(ReadingIDError)`) and case.
final class ReadingIDTests: XCTestCase {
    func testTrimsSurroundingWhitespace() throws {
        XCTAssertEqual(try ReadingID.normalize(" book_7 "), "book_7")
        XCTAssertEqual(try ReadingID.normalize("\tbook-7\n"), "book-7")
    }

    func testTrimsIdeographicSpaceTypedByAJapaneseIME() throws {
        XCTAssertEqual(try ReadingID.normalize("\u{3000}book_7\u{3000}"), "book_7")
    }

    func testRejectsEmptyInput() {
        assertRejected("", with: .empty)
    }

    func testRejectsWhitespaceOnlyInputAsEmpty() {
        assertRejected("  \t\n ", with: .empty)
    }

    func testRejectsInnerSpace() {
        assertRejected("book 7", with: .invalidCharacter(" "))
        assertRejected(" book 7 ", with: .invalidCharacter(" "))
        assertRejected("book\u{3000}7", with: .invalidCharacter("\u{3000}"))
    }

    func testRejectsThirtyThreeCharacters() {
        assertRejected(String(repeating: "a", count: 33), with: .tooLong(count: 33))
    }

    func testAcceptsOneCharacter() throws {
        XCTAssertEqual(try ReadingID.normalize("7"), "7")
    }

    func testAcceptsThirtyTwoCharacters() throws {
        let longest = String(repeating: "b", count: 32)
        XCTAssertEqual(try ReadingID.normalize(longest), longest)
        XCTAssertEqual(try ReadingID.normalize("  \(longest)  "), longest, "length counts after trimming")
    }

    func testAcceptsEveryAllowedCharacterClass() throws {
        XCTAssertEqual(try ReadingID.normalize("AZaz09_-"), "AZaz09_-")
    }

    func testRejectsIllegalCharactersNamingTheFirstOne() {
        let cases: [(input: String, offending: Character)] = [
            ("book.7", "."), ("book/7", "/"), ("book:7", ":"), ("book7!", "!"), ("book\t7", "\t"),
            ("本7", "本"), ("ｂｏｏｋ7", "ｂ"), ("café", "é"), ("book7🙂", "🙂"), ("e\u{301}", "e\u{301}"),
        ]
        for (input, offending) in cases {
            assertRejected(input, with: .invalidCharacter(offending))
        }
    }

    func testCharacterErrorWinsOverLength() {
        assertRejected(String(repeating: "x", count: 40) + "!", with: .invalidCharacter("!"))
    }

    func testErrorMessagesSayWhatIsAllowed() {
        XCTAssertEqual(
            ReadingIDError.tooLong(count: 33).errorDescription,
            "A reading ID has at most 32 characters; this one has 33.")
        XCTAssertEqual(
            ReadingIDError.invalidCharacter(" ").errorDescription,
            "A reading ID may only contain ASCII letters, digits, underscores and hyphens, not \" \".")
    }

    private func assertRejected(
        _ raw: String, with expected: ReadingIDError, file: StaticString = #filePath, line: UInt = #line
    ) {
        do throws(ReadingIDError) {
            let accepted = try ReadingID.normalize(raw)
            XCTFail(
                "\(String(reflecting: raw)) was accepted as \(String(reflecting: accepted))", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, "for input \(String(reflecting: raw))", file: file, line: line)
        }
    }
}

import XCTest

@testable import PipeWeb

final class HTMLTextTests: XCTestCase {
    func testEscapesMarkupQuotesAndControls() {
        XCTAssertEqual(
            HTMLText.escape("<script>alert(\"x\")</script> & 'y'\u{1B}[31m"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;\u{FFFD}[31m")
        XCTAssertEqual(HTMLText.escape("line\nnext\ttab"), "line\nnext\ttab")
    }

    func testURLComponentsKeepOnlyUnreservedBytes() {
        XCTAssertEqual(HTMLText.urlComponent("Reader Tests/test_a()"), "Reader%20Tests%2Ftest_a%28%29")
        XCTAssertEqual(HTMLText.urlComponent("20261203-0700-ab12"), "20261203-0700-ab12")
        XCTAssertEqual(HTMLText.urlComponent("\"><"), "%22%3E%3C")
    }

    func testImagesAreKnownByTheirBytesAlone() {
        XCTAssertEqual(ImageKind.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]), .png)
        XCTAssertEqual(ImageKind.sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertNil(ImageKind.sniff(Array("<svg onload=alert(1)>".utf8)))
        XCTAssertNil(ImageKind.sniff([0x89, 0x50]))
    }
}

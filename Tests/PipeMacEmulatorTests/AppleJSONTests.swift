import XCTest

@testable import PipeMacEmulator

final class AppleJSONTests: XCTestCase {
    func testPrettyPrinterMatchesApplesStyle() {
        let document = AppleJSON.object([
            .init("devices", .object([.init("com.apple.CoreSimulator.SimRuntime.iOS-26-3", .array([]))])),
            .init("pairs", .object([])),
            .init("path", .string("/Users/ci/a \"b\"")),
            .init("n", .double(0.0014)),
            .init("whole", .double(406)),
        ])
        XCTAssertEqual(
            document.rendered(AppleJSON.Style(escapesSlashes: true)),
            """
            {
              "devices" : {
                "com.apple.CoreSimulator.SimRuntime.iOS-26-3" : [

                ]
              },
              "pairs" : {

              },
              "path" : "\\/Users\\/ci\\/a \\"b\\"",
              "n" : 0.0014,
              "whole" : 406
            }

            """)
    }

    func testSortedAndCompactStyles() {
        let document = AppleJSON.object([.init("b", .int(1)), .init("a", .array([.bool(true), .string("x/y")]))])
        XCTAssertEqual(
            document.rendered(AppleJSON.Style(sortsKeys: true, compact: true)), "{\"a\":[true,\"x/y\"],\"b\":1}\n")
    }

    func testHumanDurations() {
        XCTAssertEqual(XCResultJSON.humanDuration(0.0014), "0.0014s")
        XCTAssertEqual(XCResultJSON.humanDuration(0.11), "0.11s")
        XCTAssertEqual(XCResultJSON.humanDuration(22.2), "22s")
        XCTAssertEqual(XCResultJSON.humanDuration(65), "1m 5s")
        XCTAssertEqual(XCResultJSON.humanDuration(0), "0s")
    }

    func testDestinationSpecifierEchoAndVersions() {
        XCTAssertEqual(
            DestinationSpecifier("platform=iOS Simulator,name=iPhone 15,OS=17.5").echo,
            "{ platform:iOS Simulator, name:iPhone 15, OS:17.5 }")
        XCTAssertEqual(DestinationSpecifier.versionKey("17.5.0"), DestinationSpecifier.versionKey("17.5"))
        XCTAssertNotEqual(DestinationSpecifier.versionKey("17.5.1"), DestinationSpecifier.versionKey("17.5"))
    }
}

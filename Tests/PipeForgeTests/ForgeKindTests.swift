import PipeForge
import XCTest

final class ForgeKindTests: XCTestCase {
    func testEachForgeIsNamedAsInTheConfiguration() {
        XCTAssertEqual(ForgeKind.allCases.map(\.rawValue), ["github", "gitea", "gitlab"])
        XCTAssertNil(ForgeKind(rawValue: "forgejo"), "Forgejo is configured as gitea")
    }
}

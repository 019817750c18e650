import PipeCore
import XCTest

final class LayerOrderTests: XCTestCase {
    func testKeepsFileOrderWhenNothingIsNeeded() {
        let layers = ["logic", "intent", "shortcuts"].map { LayerSpec(name: $0, plugin: "x") }
        XCTAssertEqual(LayerOrder.sorted(layers).map(\.name), ["logic", "intent", "shortcuts"])
    }

    func testPlacesEachLayerAfterWhatItNeeds() {
        let layers = [
            LayerSpec(name: "device", plugin: "x", needs: ["intent", "logic"]),
            LayerSpec(name: "intent", plugin: "x", needs: ["logic"]),
            LayerSpec(name: "logic", plugin: "x"),
            LayerSpec(name: "lint", plugin: "x"),
        ]
        XCTAssertEqual(LayerOrder.sorted(layers).map(\.name), ["logic", "intent", "device", "lint"])
    }

    func testACycleDoesNotLoopForever() {
        let layers = [
            LayerSpec(name: "a", plugin: "x", needs: ["b"]), LayerSpec(name: "b", plugin: "x", needs: ["a"]),
        ]
        XCTAssertEqual(LayerOrder.sorted(layers).map(\.name), ["a", "b"])
    }
}

import Foundation
import PipeSpec
import XCTest

/// A big generated pipeline still loads in a blink: validation work must stay close to linear.
final class LargePipelineTests: XCTestCase {
    /// `count` layers, each needing the previous one (the deepest `needs` chain possible), with typical settings.
    private func pipelineText(layers count: Int) -> String {
        var yaml = """
            description: "generated"
            parameters:
              scheme: { default: Reader }
            layers:

            """
        for index in 0..<count {
            yaml += """
                  layer-\(index):
                    plugin: xcodebuild-test
                    scheme: ${scheme}
                    timeout: 10m
                    only-testing: [ReaderTests/Case\(index)Tests, ReaderTests/Other\(index)Tests]
                    environment: { INDEX: "\(index)" }

                """
            if index > 0 { yaml += "    needs: [layer-\(index - 1)]\n" }
        }
        return yaml
    }

    func testFiveHundredLayersLoadFast() throws {
        let yaml = pipelineText(layers: 500)
        let started = Date()
        let pipeline = try SpecFixtures.pipeline(yaml)
        let seconds = Date().timeIntervalSince(started)

        XCTAssertEqual(pipeline.layers.count, 500)
        XCTAssertEqual(pipeline.layers[499].needs, ["layer-498"])
        XCTAssertEqual(
            pipeline.layers[250].settings["only-testing"],
            .strings(["ReaderTests/Case250Tests", "ReaderTests/Other250Tests"]))
        XCTAssertLessThan(seconds, 1.0, "500 layers took \(seconds) s")
    }

    func testErrorsInALargePipelineAreAllFoundAndSorted() {
        var yaml = pipelineText(layers: 300)
        yaml = yaml.replacingOccurrences(of: "    timeout: 10m\n", with: "    timout: 10m\n")
        let errors = SpecFixtures.errors(yaml)
        XCTAssertEqual(errors.count, 300)
        XCTAssertTrue(errors.allSatisfy { $0.hasSuffix("unknown key; did you mean 'timeout'?") })
        let lines = errors.compactMap { Int($0.split(separator: ":")[1]) }
        XCTAssertEqual(lines, lines.sorted())
    }

    func testFiveThousandLayerChainStaysLinear() throws {
        let yaml = pipelineText(layers: 5000)
        let started = Date()
        let pipeline = try SpecFixtures.pipeline(yaml)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(pipeline.layers.count, 5000)
        XCTAssertLessThan(seconds, 10.0, "5000 layers took \(seconds) s")
        print("5000-layer pipeline (\(yaml.utf8.count) bytes) loaded in \(String(format: "%.3f", seconds)) s")
    }
}

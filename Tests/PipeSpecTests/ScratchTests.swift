import PipeSpec
import XCTest

final class ScratchTests: XCTestCase {
    func testScratch() {
        let yaml = """
            description: x
            parameters:
              scheme: { default: Reader }
              ref: { required: true }
            layers:
              logic:
                plugin: xcodebuild-test
                timout: 10m
                scheme: ${shceme}
                only-testing: [A, {b: c}]
              ui:
                plugin: xcodebuild-tst
                needs: [logic, ui, nope]
              Bad Name:
                plugin: shell
                run: yes
              a:
                plugin: shell
                run: x
                needs: b
              b:
                plugin: shell
                run: x
                needs: [a]
                timeout: ten
            flaky: alow
            simulator:
              runtime: tvOS 17
              platform: ios
            host: { labels: { xcode: 16.20 }, name: [x] }
            """
        print(SpecFixtures.errors(yaml, parameters: ["sheme": "x"]).joined(separator: "\n"))
        print(SpecFixtures.errors("a: 'b\nc: d\n").joined(separator: "\n"))
        print(SpecFixtures.errors("a:\n\tb: c\n").joined(separator: "\n"))
        print(SpecFixtures.errors("a: 1\n---\nb: 2\n").joined(separator: "\n"))
        print(SpecFixtures.errors("a: [1, 2\nb: 3\n").joined(separator: "\n"))
        print(SpecFixtures.errors("a: 1\na: 2\nlayers: {}").joined(separator: "\n"))
    }
}

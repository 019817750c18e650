import PipeCore
import XCTest

final class HostChooserTests: XCTestCase {
    let hosts = [
        HostConfig(name: "mac-1", address: "10.0.0.1", user: "ci", knownHostsFile: "k", labels: ["xcode": "16.2"]),
        HostConfig(name: "mac-2", address: "10.0.0.2", user: "ci", knownHostsFile: "k", labels: ["xcode": "15.4"]),
    ]

    func testOverrideThenNamesThenLabelsThenAll() throws {
        XCTAssertEqual(
            try HostChooser.candidates(for: HostSelection(names: ["mac-1"]), override: "mac-2", among: hosts).map(
                \.name), ["mac-2"])
        XCTAssertEqual(
            try HostChooser.candidates(for: HostSelection(names: ["mac-2"]), override: nil, among: hosts).map(\.name),
            ["mac-2"])
        XCTAssertEqual(
            try HostChooser.candidates(for: HostSelection(labels: ["xcode": "15.4"]), override: nil, among: hosts)
                .map(\.name), ["mac-2"])
        XCTAssertEqual(
            try HostChooser.candidates(for: HostSelection(), override: nil, among: hosts).map(\.name),
            ["mac-1", "mac-2"])
    }

    func testUnknownNameSuggestsTheNearest() {
        XCTAssertThrowsError(try HostChooser.candidates(for: HostSelection(), override: "mac-3", among: hosts)) {
            let message = "\($0)"
            XCTAssertTrue(message.contains("'mac-3'"), message)
            XCTAssertTrue(message.contains("did you mean 'mac-1'?"), message)
        }
    }

    func testNoHostsSaysHowToAddOne() {
        XCTAssertThrowsError(try HostChooser.candidates(for: HostSelection(), override: nil, among: [])) {
            XCTAssertTrue("\($0)".contains("make mac-up"))
        }
    }

    func testNoMatchingLabelsListsWhatHostsHave() {
        XCTAssertThrowsError(
            try HostChooser.candidates(for: HostSelection(labels: ["xcode": "26.0"]), override: nil, among: hosts)
        ) {
            let message = "\($0)"
            XCTAssertTrue(message.contains("xcode=26.0"), message)
            XCTAssertTrue(message.contains("mac-2 (xcode=15.4)"), message)
        }
    }
}

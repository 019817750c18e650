import Haptics
import XCTest

#if canImport(CoreHaptics)
    import CoreHaptics
#else
    import CoreHapticsStandIn
#endif

/// Layer `event-spec`: the confirmation's definition itself, the same function the app plays. No device, no
/// vibration: this is the part a cloud Mac can prove.
final class ConfirmationEventsTests: XCTestCase {
    func testConfirmationIsOneImmediateEvent() {
        let events = confirmationEvents()
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events[0].relativeTime, 0)
        XCTAssertEqual(events[0].type, .hapticTransient)
    }

    func testConfirmationIsATapNotAVibration() {
        // A transient event has no duration of its own; a continuous one would hum for as long as it lasts.
        XCTAssertNotEqual(confirmationEvents()[0].type, .hapticContinuous)
        XCTAssertEqual(confirmationEvents()[0].duration, 0)
    }

    func testIntensityAndSharpnessAreSetAndInRange() {
        let parameters = confirmationEvents()[0].eventParameters
        let byID = Dictionary(uniqueKeysWithValues: parameters.map { ($0.parameterID, $0.value) })
        XCTAssertEqual(parameters.count, 2)
        XCTAssertEqual(byID[.hapticIntensity], 0.65)
        XCTAssertEqual(byID[.hapticSharpness], 0.35)
        for parameter in parameters {
            XCTAssertTrue((0...1).contains(parameter.value), "\(parameter.parameterID.rawValue) = \(parameter.value)")
        }
    }

    func testEveryCallGivesTheSameDefinition() {
        let first = confirmationEvents()
        let second = confirmationEvents()
        XCTAssertEqual(first.map(\.type), second.map(\.type))
        XCTAssertEqual(first.map(\.relativeTime), second.map(\.relativeTime))
        XCTAssertEqual(
            first.flatMap { $0.eventParameters.map(\.value) }, second.flatMap { $0.eventParameters.map(\.value) })
    }
}

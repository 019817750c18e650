import Haptics
import XCTest

#if canImport(CoreHaptics)
    import CoreHaptics
#else
    import CoreHapticsStandIn
#endif

/// Layer `trigger-timing`: when and how often the confirmation is asked for, through an injected player that
/// records calls. More stable than asking whether a simulator vibrated, and exactly what the code can promise.
@MainActor
final class SaveHapticsTests: XCTestCase {
    func testSuccessPlaysTheConfirmationOnce() async {
        let (controller, store, player) = make()
        store.outcome = .success(())
        let outcome = await controller.tapSave("book_7")
        XCTAssertEqual(outcome, .saved)
        XCTAssertEqual(controller.status, .saved)
        XCTAssertEqual(player.played.count, 1)
        XCTAssertEqual(player.played.first?.map(\.type), confirmationEvents().map(\.type))
        XCTAssertEqual(player.played.first?.map(\.relativeTime), [0])
    }

    func testTheConfirmationPlaysOnlyAfterTheSaveCompleted() async {
        let (controller, store, player) = make()
        store.holdsSaves = true
        let tap = Task { await controller.tapSave("book_7") }
        await store.waitUntilSaving()
        XCTAssertEqual(controller.status, .saving)
        XCTAssertEqual(player.played.count, 0, "nothing plays at the tap, before the save is done")
        store.finish(.success(()))
        _ = await tap.value
        XCTAssertEqual(player.played.count, 1)
    }

    func testFailurePlaysNothingAndShowsTheError() async {
        let (controller, store, player) = make()
        store.outcome = .failure(SaveFailure.diskFull)
        let outcome = await controller.tapSave("book_7")
        XCTAssertEqual(outcome, .failed("The disk is full."))
        XCTAssertEqual(controller.status, .failed("The disk is full."))
        XCTAssertEqual(player.played.count, 0)
    }

    func testRapidRepeatedTapsPlayNoExtra() async {
        let (controller, store, player) = make()
        store.holdsSaves = true
        let first = Task { await controller.tapSave("book_7") }
        await store.waitUntilSaving()
        let repeated = [
            await controller.tapSave("book_7"), await controller.tapSave("book_7"), await controller.tapSave("book_7"),
        ]
        XCTAssertEqual(repeated, [.ignored, .ignored, .ignored])
        store.finish(.success(()))
        let firstOutcome = await first.value
        XCTAssertEqual(firstOutcome, .saved)
        XCTAssertEqual(store.saves, 1, "the taps during the save neither saved again")
        XCTAssertEqual(player.played.count, 1, "nor played again")
    }

    func testASecondSaveAfterTheFirstCompletedPlaysAgain() async {
        let (controller, store, player) = make()
        store.outcome = .success(())
        await controller.tapSave("book_7")
        await controller.tapSave("book_8")
        XCTAssertEqual(store.saves, 2)
        XCTAssertEqual(player.played.count, 2)
    }

    func testNoHapticsHardwareLeavesTheVisibleResultUnchanged() async {
        let (withHaptics, storeA, _) = make()
        let (without, storeB, silent) = make(supportsHaptics: false)
        storeA.outcome = .success(())
        storeB.outcome = .success(())
        await withHaptics.tapSave("book_7")
        await without.tapSave("book_7")
        XCTAssertEqual(without.status, withHaptics.status)
        XCTAssertEqual(without.status, .saved)
        XCTAssertEqual(silent.played.count, 0, "nothing is asked of a device that cannot play it")
        XCTAssertEqual(without.hapticFailures, [])
    }

    func testAPlayerFailureNeverTurnsASavedResultIntoAFailure() async {
        let (controller, store, player) = make()
        store.outcome = .success(())
        player.failure = PlayerFailure.engineStopped
        let outcome = await controller.tapSave("book_7")
        XCTAssertEqual(outcome, .saved)
        XCTAssertEqual(controller.status, .saved)
        XCTAssertEqual(player.attempts, 1)
        XCTAssertEqual(controller.hapticFailures, ["engineStopped"], "kept for diagnosis, not shown as the result")
    }

    // MARK: - Helpers

    private func make(supportsHaptics: Bool = true) -> (SaveController, ControlledStore, RecordingPlayer) {
        let store = ControlledStore()
        let player = RecordingPlayer(supportsHaptics: supportsHaptics)
        return (SaveController(store: store, haptics: player), store, player)
    }
}

/// A player that records what it was asked to play.
final class RecordingPlayer: HapticPlaying {
    let supportsHaptics: Bool
    var failure: Error?
    private(set) var played: [[CHHapticEvent]] = []
    private(set) var attempts = 0

    init(supportsHaptics: Bool) { self.supportsHaptics = supportsHaptics }

    func play(_ events: [CHHapticEvent]) throws {
        attempts += 1
        if let failure { throw failure }
        played.append(events)
    }
}

enum PlayerFailure: Error {
    case engineStopped
}

enum SaveFailure: LocalizedError {
    case diskFull

    var errorDescription: String? { "The disk is full." }
}

/// A store whose saves end when the test says (`holdsSaves`), or at once with `outcome`.
@MainActor
final class ControlledStore: RecordSaving {
    var outcome: Result<Void, Error> = .success(())
    var holdsSaves = false
    private(set) var saves = 0
    private var pending: CheckedContinuation<Void, Error>?
    private var savingWaiters: [CheckedContinuation<Void, Never>] = []

    nonisolated func save(_ text: String) async throws {
        try await record()
    }

    private func record() async throws {
        saves += 1
        // Only the first save is held: a second one arriving meanwhile ends at once, so a controller that saves
        // twice fails the test instead of hanging it.
        guard holdsSaves, pending == nil else { return try outcome.get() }
        try await withCheckedThrowingContinuation { continuation in
            pending = continuation
            for waiter in savingWaiters { waiter.resume() }
            savingWaiters.removeAll()
        }
    }

    /// Returns once a save is in progress.
    func waitUntilSaving() async {
        if pending != nil { return }
        await withCheckedContinuation { savingWaiters.append($0) }
    }

    func finish(_ result: Result<Void, Error>) {
        pending?.resume(with: result)
        pending = nil
    }
}

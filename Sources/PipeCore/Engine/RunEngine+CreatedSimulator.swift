import Foundation

extension RunEngine {
    /// What the store keeps of a simulator Pipe created for a run (`simulator-created` / `simulator-deleted` events),
    /// so `pipe hosts clean` can delete one a killed run left.
    public struct CreatedSimulatorEvent: Codable, Sendable, Equatable {
        public static let created = "simulator-created"
        public static let deleted = "simulator-deleted"

        public var host: String
        public var udid: String

        public init(host: String, udid: String) {
            self.host = host
            self.udid = udid
        }
    }

    /// Creates a simulator when the criteria allow it and nothing matched (`nothingMatched` says what the host
    /// has), records it in the store before anything else can fail, and chooses it. Returns the updated list and
    /// the choice.
    func createSimulator(
        _ criteria: SimulatorCriteria, nothingMatched: ConfigurationError, on remote: RemoteHost, host: String,
        state: RunState
    ) throws -> (simulators: [Simulator], choice: SimulatorChoice, udid: String) {
        let udid: String
        do {
            udid = try inspector.createSimulator(criteria, on: remote)
        } catch let error as ConfigurationError {
            throw ConfigurationError(
                "\(nothingMatched.message)\nand no simulator could be created (`simulator.create: true`): "
                    + error.message)
        }
        try state.journal.record(
            StoredEvent.Draft(
                type: CreatedSimulatorEvent.created, encoding: CreatedSimulatorEvent(host: host, udid: udid)))
        let simulators = try inspector.simulators(on: remote)
        var exact = criteria
        exact.udid = udid
        var choice = try inspector.choose(exact, among: simulators, excluding: [], udidSource: "simctl create")
        choice.reason =
            "created by Pipe for this run (`simulator.create: true`): no simulator matched; \(choice.reason)"
        return (simulators, choice, udid)
    }

    /// Deletes the simulator `createSimulator` made; a failure is a warning (`pipe hosts clean` deletes it later).
    func deleteCreatedSimulator(_ udid: String, on remote: RemoteHost, host: String, journal: RunJournal) {
        do {
            try inspector.deleteSimulator(udid: udid, on: remote)
            try journal.record(
                StoredEvent.Draft(
                    type: CreatedSimulatorEvent.deleted, encoding: CreatedSimulatorEvent(host: host, udid: udid)))
        } catch {
            journal.emit(
                .warning(
                    "the simulator \(udid) Pipe created on \(host) could not be deleted (\(error)); "
                        + "`pipe hosts clean \(host)` deletes it"))
        }
    }
}

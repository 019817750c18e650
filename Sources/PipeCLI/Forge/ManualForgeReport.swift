import Foundation
import PipeBasics
import PipeCore
import PipeForge
import PipeStore

/// `pipe run --report <forge>`: a person's run posted to a forge of forges.yml under contexts of its own
/// (`pipe/<pipeline>/<gate>/manual`), never the ones branch protection requires: `pending` once its commit is
/// known, its verdict when it ends, each sent by this process at once (and kept in the outbox for
/// `pipe forge send` when the forge cannot take it now).
final class ManualForgeReport: @unchecked Sendable {
    private let forge: ForgeConfig
    private let store: SQLiteRunStore
    private let reporter: ForgeReporter
    private let sender: ForgeOutboxSender
    private let console: Console
    /// Sends off the run's thread, one pass at a time: a slow forge never holds up a layer.
    private let sending = DispatchQueue(label: "pipe-run-report")
    private let lock = NSLock()
    private var runID: String?

    /// Checks, before anything runs, that forges.yml names `forgeName` and that its credential can be had.
    init(forgeName: String, context: CommandContext, project: ProjectFolder) throws {
        let loader = ForgesConfigLoader(pipelines: project.availablePipelines())
        guard let forges = try loader.load(projectDirectory: project.url) else {
            throw RequestError(
                "--report \(forgeName): the project \(project.url.path) has no forges.yml; docs/forges.md shows how "
                    + "to write one")
        }
        guard let forge = forges.forge(named: forgeName) else {
            let names = forges.forges.map(\.name)
            var message = "--report: forges.yml has no forge '\(forgeName)'"
            if let near = EditDistance.nearest(to: forgeName, in: names) { message += "; did you mean '\(near)'?" }
            throw RequestError(message + " (its forges: \(names.joined(separator: ", ")))")
        }
        let transport = ForgeHTTPTransport.make()
        let credentials = ForgeCredentials(
            secrets: ForgeSecrets(environment: context.environment, projectDirectory: project.url),
            transport: transport)
        do {
            _ = try credentials.credential(of: forge)
        } catch {
            throw RequestError(
                "--report \(forge.name): no credential for \(forge.repository): \(error); `pipe forge check` "
                    + "says what is wrong")
        }
        let store = try SQLiteRunStore(location: StoreAccess.location(context, project: project))
        let delivery = ControllerForges.outboxDelivery(
            forges: forges, store: store, credentials: credentials, transport: transport)
        let owner = RunOwner.current()
        self.forge = forge
        self.store = store
        self.reporter = ForgeReporter(forges: forges, store: store)
        self.sender = ForgeOutboxSender(store: store, owner: "\(owner.hostname):\(owner.pid):run-report") {
            delivery.deliver($0)
        }
        self.console = context.console
    }

    /// Watches the run's events: its id when it starts, `pending` once its commit is checked out.
    func observe(_ event: RunEvent) {
        switch event {
        case .runStarted(let runID, _, _):
            lock.withLock { self.runID = runID }
        case .checkedOut:
            guard let runID = lock.withLock({ self.runID }),
                let record = try? store.run(runID)?.record, !write(record).isEmpty
            else { return }
            sending.async { [self] in _ = send() }
        default:
            break
        }
    }

    /// Writes the run's verdicts and sends what is due, after the pending statuses went out; says on stderr what
    /// the forge took.
    func finished(_ record: RunRecord) {
        // The pending statuses go first: written after, the verdicts would replace them unsent.
        sending.sync {}
        let contexts = write(record)
        let report = sending.sync { send() }
        guard !contexts.isEmpty else {
            console.err("--report \(forge.name): the run has no commit, so nothing was posted\n")
            return
        }
        if let report, report.failed == 0, report.retrying == 0 {
            console.err(
                "--report \(forge.name): posted \(contexts.joined(separator: ", ")) on \(record.commit ?? "")\n")
        } else {
            console.err(
                "--report \(forge.name): \(contexts.joined(separator: ", ")) did not all reach the forge; they wait in "
                    + "the outbox: `pipe forge send` tries again, `pipe forge deliveries` shows what was received\n")
        }
    }

    private func write(_ record: RunRecord) -> [String] {
        do {
            return try reporter.reportManual(record, on: forge)
        } catch {
            console.err("--report \(forge.name): the statuses could not be written: \(error)\n")
            return []
        }
    }

    private func send() -> ForgeOutboxSender.Report? {
        do {
            return try sender.sendDue()
        } catch {
            console.err("--report \(forge.name): sending failed: \(error)\n")
            return nil
        }
    }
}

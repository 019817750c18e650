import Foundation
import PipeCore
import PipeForge
import PipeHTTP
import PipeStore

/// The forge loop of a controller: a webhook endpoint per forge of `forges.yml` on the controller's listener, the
/// statuses of the runs they queue written to the outbox, and the sender that delivers the outbox.
final class ControllerForges {
    let forges: ForgesConfig
    private let store: SQLiteRunStore
    private let reporter: ForgeReporter
    private let sender: ForgeOutboxSender
    private let secrets: ForgeSecrets
    private let credentials: ForgeCredentials
    private let transport: ForgeOutboxDelivery.Transport

    /// `nil` when the project has no `forges.yml`.
    static func load(project: ProjectFolder, store: SQLiteRunStore, environment: [String: String]) throws
        -> ControllerForges?
    {
        let loader = ForgesConfigLoader(pipelines: project.availablePipelines())
        guard let forges = try loader.load(projectDirectory: project.url) else { return nil }
        return ControllerForges(forges: forges, store: store, environment: environment, project: project)
    }

    init(forges: ForgesConfig, store: SQLiteRunStore, environment: [String: String], project: ProjectFolder) {
        self.forges = forges
        self.store = store
        let secrets = ForgeSecrets(environment: environment, projectDirectory: project.url)
        self.secrets = secrets
        let reporter = ForgeReporter(forges: forges, store: store)
        self.reporter = reporter
        let transport = ForgeHTTPTransport.make()
        self.transport = transport
        let credentials = ForgeCredentials(secrets: secrets, transport: transport)
        self.credentials = credentials
        let delivery = Self.outboxDelivery(
            forges: forges, store: store, credentials: credentials, transport: transport)
        let owner = RunOwner.current()
        sender = ForgeOutboxSender(store: store, owner: "\(owner.hostname):\(owner.pid)") { delivery.deliver($0) }
    }

    /// What sends the outbox's updates, for the controller and `pipe forge send` alike: statuses, comments, and
    /// check runs built from the run store when they go out.
    static func outboxDelivery(
        forges: ForgesConfig, store: SQLiteRunStore, credentials: ForgeCredentials,
        transport: @escaping ForgeOutboxDelivery.Transport
    ) -> ForgeOutboxDelivery {
        let reporter = ForgeReporter(forges: forges, store: store)
        return ForgeOutboxDelivery(
            forges: forges, objects: store, credential: { try credentials.credential(of: $0) },
            appCredential: { try credentials.appCredential(of: $0) },
            checkRun: { payload, forge in try reporter.checkRun(for: payload, forge: forge) }, transport: transport)
    }

    /// Mounts one webhook endpoint per forge on `services`; `repository` says where a pipeline's checkout fetches
    /// from, where a pushed branch's current head is read.
    func mount(
        on services: ControllerHTTPServices, repository: @escaping (_ pipeline: String) -> String?,
        log: @escaping (String) -> Void
    ) throws {
        for forge in forges.forges {
            let (credentials, transport) = (self.credentials, self.transport)
            let intake = ForgeIntake(config: forge, store: store) { trigger in
                if trigger.event == .push {
                    guard let pipeline = forge.pipelines(forPushTo: trigger.fetchRef).first,
                        let location = repository(pipeline)
                    else { return nil }
                    return ForgeBranchHead.current(of: trigger, repository: location)
                }
                return Self.currentHead(of: trigger, forge: forge, credentials: credentials, transport: transport)
            }
            let handler = ForgeWebhookHandler(
                forge: forge, verifier: try secrets.webhookVerifier(for: forge), intake: intake, reporter: reporter,
                store: store, wakeSender: { [sender] in sender.wake() }, log: log)
            services.mount(handler.endpoint)
        }
    }

    /// The chat's `approve`, with this controller's credentials, and its sender woken for the statuses it queues.
    func chatApprover() -> ChatForgeApprover {
        ChatForgeApprover(
            forges: forges, store: store, credentials: credentials, transport: transport,
            wakeSender: { [sender] in sender.wake() })
    }

    /// Posts `pending` for a watch's or a schedule's run once its commit is known: a forge's event posted its own
    /// when it queued the run.
    func runCheckedOut(_ runID: String, log: (String) -> Void) {
        do {
            guard let item = try store.queuedRun(runID), item.request.forge == nil else { return }
            if try reporter.report(runID) > 0 { sender.wake() }
        } catch {
            log("forges: the pending statuses of run \(runID) could not be written: \(error)")
        }
    }

    /// Reports a run's gates once it has ended (a forge's runs only).
    func runEnded(_ runID: String, log: (String) -> Void) {
        do {
            if try reporter.report(runID) > 0 { sender.wake() }
        } catch {
            log("forges: the statuses of run \(runID) could not be written: \(error)")
        }
    }

    func start(log: @escaping @Sendable (String) -> Void) {
        sender.start { error in log("forges: sending updates failed: \(error)") }
    }

    func stop() { sender.stop() }

    /// The pull request's head as its forge's API reports it now; `nil` when the forge cannot be asked (then the
    /// event is taken as the newest).
    static func currentHead(
        of trigger: ForgeTrigger, forge: ForgeConfig, credentials: ForgeCredentials,
        transport: ForgeOutboxDelivery.Transport
    ) -> String? {
        guard let number = trigger.number, let credential = try? credentials.credential(of: forge),
            let request = try? ForgeAPI(repository: forge.apiRepository).pullRequest(number),
            case .success(let answer) = transport(request.authorized(by: credential), forge.apiURL),
            (200..<300).contains(answer.status)
        else { return nil }
        return ForgeAnswers.pullRequestHead(answer, forge: forge.kind)?.value
    }
}

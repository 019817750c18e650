import Dispatch
import Foundation
import PipeServer

/// The controller's signals: SIGTERM and SIGINT stop it (a second one cancels running runs at once), SIGHUP reloads
/// its config.
final class ControllerSignals {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "pipe.controller.signals")

    init(controller: Controller) {
        let names: [Int32: String] = [SIGTERM: "SIGTERM", SIGINT: "SIGINT (Ctrl-C)", SIGHUP: "SIGHUP"]
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [weak controller] in
                guard let controller else { return }
                if signalNumber == SIGHUP {
                    controller.requestReload()
                } else {
                    controller.requestStop(reason: "\(names[signalNumber] ?? "signal \(signalNumber)") received")
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

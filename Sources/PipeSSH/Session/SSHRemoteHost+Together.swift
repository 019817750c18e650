import Foundation
import PipeCore

extension SSHRemoteHost {
    /// Starts every command and the sync on channels of this session, then drives them in one loop
    /// (`RemoteCommand.runTogether`): the host runs the commands while this side lists the workspace and sends it.
    ///
    /// A failure of the sync's own local side (a file that cannot be read) ends the sync alone and the commands go
    /// on; a lost connection ends them all.
    public func captureTogether(_ commands: [String], timeoutSeconds: Double, syncing request: WorkspaceSyncRequest?)
        -> CapturedTogether
    {
        let deadline = Deadline(secondsFromNow: timeoutSeconds)
        var outputs = [Result<CapturedOutput, Error>?](repeating: nil, count: commands.count)
        var started: [(index: Int, remote: RemoteCommand, output: CollectedOutput)] = []
        defer { for command in started { command.remote.close() } }
        for (index, command) in commands.enumerated() {
            let output = CollectedOutput()
            do {
                let remote = try RemoteCommand(
                    command, on: session, inOwnProcessGroup: true, input: DataInput(nil), output: output,
                    deadline: deadline.earlier(Deadline(secondsFromNow: Self.startSeconds)))
                started.append((index, remote, output))
            } catch {
                outputs[index] = .failure(error)
            }
        }
        var syncResult: Result<TransferSummary, Error>?
        var startedSync: StartedSync?
        if let request {
            do {
                startedSync = try startSync(
                    directory: request.directory, cacheKey: request.cacheKey, to: request.remoteDirectory)
            } catch {
                syncResult = .failure(error)
            }
        }
        defer { startedSync?.close() }

        let commandLimits = started.map { command in
            (deadline: deadline, idleSeconds: Double?.none, stop: { command.output.overflow != nil })
        }
        var endings: [RemoteCommand.Ending]
        do {
            if let startedSync {
                endings = try RemoteCommand.runTogether(
                    started.map(\.remote) + [startedSync.remote],
                    limits: commandLimits + [(deadline: .never, idleSeconds: transferStallSeconds, stop: { false })])
                let syncEnding = endings.removeLast()
                syncResult = Result { try finishSync(startedSync, ending: syncEnding).transfer }
            } else {
                endings = try RemoteCommand.runTogether(started.map(\.remote), limits: commandLimits)
            }
        } catch let failure as WorkspaceScanner.Failure {
            // Only the sync's input and output read local files: the commands are driven on to their end without it.
            if let startedSync {
                try? stopQuietly(startedSync.remote)
                syncResult = .failure(
                    RemoteError(.commandFailed, host: name, "\(startedSync.what) failed: \(failure.message)"))
            }
            do {
                endings = try RemoteCommand.runTogether(started.map(\.remote), limits: commandLimits)
            } catch {
                for command in started { outputs[command.index] = .failure(error) }
                return CapturedTogether(outputs: outputs.map { $0! }, sync: syncResult)
            }
        } catch {
            for command in started { outputs[command.index] = .failure(error) }
            return CapturedTogether(
                outputs: outputs.map { $0! }, sync: request.map { _ in syncResult ?? .failure(error) })
        }
        for (position, command) in started.enumerated() {
            outputs[command.index] = Result {
                try captured(
                    command.remote, output: command.output, ending: endings[position], command: commands[command.index])
            }
        }
        return CapturedTogether(outputs: outputs.map { $0! }, sync: syncResult)
    }
}

import Foundation
import PipeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One command running on the host over its own channel: feeds its input, hands its output over as it arrives,
/// and (when started through `RemoteScript.groupLeader`) learns the process group it runs in.
///
/// The loop reads stdout and stderr without blocking, interleaved, until both would block, and waits on the
/// socket only when libssh2 holds nothing queued for the channel: a read of one stream can pull the other's data
/// off the socket into libssh2's queue, and waiting on the socket then would stall.
final class RemoteCommand {
    /// How `run` returned.
    enum Ending: Equatable {
        /// The host closed the channel: the command ended this way.
        case exited(RemoteExit)
        /// `stop` said so.
        case stopped
        /// The deadline, or the idle limit, passed.
        case timedOut
    }

    let channel: SSHChannel
    private let input: CommandInput
    private let output: CommandOutput
    private var announcement: ProcessGroupAnnouncement?
    private var inputEnded = false
    private var inputAbandoned = false
    private var stderrEnded = false
    private var buffer: UnsafeMutableRawBufferPointer

    /// The command's process group, once announced.
    var processGroup: Int32? { announcement?.processGroup }

    /// Opens a channel and starts `commandLine`; with `inOwnProcessGroup`, through `RemoteScript.groupLeader`.
    init(
        _ commandLine: String, on session: SSHSession, inOwnProcessGroup: Bool, input: CommandInput,
        output: CommandOutput, deadline: Deadline
    ) throws {
        self.input = input
        self.output = output
        buffer = .allocate(byteCount: 256 * 1024, alignment: 16)
        var line = commandLine
        if inOwnProcessGroup {
            let marker = "PIPE-PGID-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
            announcement = ProcessGroupAnnouncement(marker: marker)
            line = RemoteScript.commandLine(
                script: RemoteScript.groupLeader, name: "pipe", arguments: [commandLine, marker])
        }
        do {
            channel = try SSHChannel(session: session, deadline: deadline)
        } catch {
            buffer.deallocate()
            throw error
        }
        try channel.exec(line, deadline: deadline)
    }

    deinit { buffer.deallocate() }

    /// Stops sending input: end of file is sent at the next turn of `run`.
    func abandonInput() {
        inputAbandoned = true
    }

    /// Drives the command until the host closes the channel, `stop()` returns `true`, `deadline` passes, or no byte
    /// moved for `idleSeconds`. Checks `stop` and the clocks at least every 100 ms.
    ///
    /// - Throws: `RemoteError` `.connectionLost` when the connection drops, and errors of the input and output.
    func run(
        deadline: Deadline, idleSeconds: Double? = nil, stop: () -> Bool = { false },
        onAnnounced: (Int32) -> Void = { _ in }
    ) throws -> Ending {
        var idleDeadline = Deadline(secondsFromNow: idleSeconds)
        var quickRetries = 0
        while true {
            let (moved, exit) = try turn(onAnnounced: onAnnounced)
            if let exit { return .exited(exit) }
            if moved { idleDeadline = Deadline(secondsFromNow: idleSeconds) }
            if stop() { return .stopped }
            if deadline.hasPassed || idleDeadline.hasPassed { return .timedOut }
            if moved { continue }
            if hasOutputToRead && quickRetries < 2 {
                quickRetries += 1
                continue
            }
            quickRetries = 0
            var others = waitDescriptors
            let wait = min(deadline.remaining(cappedAt: 0.1), idleDeadline.remaining(cappedAt: 0.1))
            channel.session.waitForSocket(maxSeconds: wait, others: &others)
        }
    }

    /// Drives `commands` (channels of one session) together until each has ended, one turn of each in turn, waiting
    /// on the socket only when none moved: two commands cost one command's round trips. `limits` gives each its
    /// deadline, idle limit and stop condition; one that passes them ends as `.timedOut` / `.stopped` (the caller
    /// stops it) while the others go on.
    static func runTogether(
        _ commands: [RemoteCommand], limits: [(deadline: Deadline, idleSeconds: Double?, stop: () -> Bool)]
    ) throws -> [Ending] {
        var endings = [Ending?](repeating: nil, count: commands.count)
        var idle = limits.map { Deadline(secondsFromNow: $0.idleSeconds) }
        var quickRetries = 0
        while endings.contains(where: { $0 == nil }) {
            var anyMoved = false
            for (index, command) in commands.enumerated() where endings[index] == nil {
                let (moved, exit) = try command.turn(onAnnounced: { _ in })
                if let exit {
                    endings[index] = .exited(exit)
                    anyMoved = true
                    continue
                }
                if moved {
                    anyMoved = true
                    idle[index] = Deadline(secondsFromNow: limits[index].idleSeconds)
                }
                if limits[index].stop() {
                    endings[index] = .stopped
                } else if limits[index].deadline.hasPassed || idle[index].hasPassed {
                    endings[index] = .timedOut
                }
            }
            if anyMoved { continue }
            let running = commands.indices.filter { endings[$0] == nil }
            guard let first = running.first else { break }
            if running.contains(where: { commands[$0].hasOutputToRead }) && quickRetries < 2 {
                quickRetries += 1
                continue
            }
            quickRetries = 0
            var others = running.flatMap { commands[$0].waitDescriptors }
            let wait =
                running.map { min(limits[$0].deadline.remaining(cappedAt: 0.1), idle[$0].remaining(cappedAt: 0.1)) }
                .min() ?? 0.1
            commands[first].channel.session.waitForSocket(maxSeconds: wait, others: &others)
        }
        return endings.map { $0 ?? .timedOut }
    }

    /// One step: sends what input it can, reads what output is there. Returns whether anything moved, and the exit
    /// once the host has closed the channel.
    private func turn(onAnnounced: (Int32) -> Void) throws -> (moved: Bool, exit: RemoteExit?) {
        var moved = false
        if !inputEnded {
            do {
                if inputAbandoned {
                    inputEnded = try channel.sendEndOfInput()
                } else if let sent = try input.send(through: channel) {
                    moved = sent > 0
                } else if try channel.sendEndOfInput() {
                    inputEnded = true
                    moved = true
                }
            } catch let error as RemoteError where error.kind == .commandFailed {
                // The command closed its side without reading all its input: not an error of the command.
                inputEnded = true
            }
        }
        moved = try output.flush() || moved
        let (drained, ended) = try drainOutput(onAnnounced: onAnnounced)
        moved = moved || drained
        if ended, try channel.isClosedByHost() {
            let held = announcement?.flush() ?? []
            if !held.isEmpty { try held.withUnsafeBytes { try output.stderr($0) } }
            return (true, channel.exitStatus())
        }
        return (moved, nil)
    }

    /// Output libssh2 already holds for this channel, which the socket will not signal.
    private var hasOutputToRead: Bool { channel.hasQueuedOutput && output.acceptsStdout }

    private var waitDescriptors: [pollfd] { [input.waitDescriptor, output.waitDescriptor].compactMap { $0 } }

    /// Reads both streams until both would block. Returns whether anything arrived, and whether both have ended.
    ///
    /// Stdout waits (in the channel window) until the process group is announced on stderr, so `onAnnounced` comes
    /// before any of the command's output even when sshd sends a stdout packet first.
    private func drainOutput(onAnnounced: (Int32) -> Void) throws -> (moved: Bool, ended: Bool) {
        var moved = false
        while true {
            var stdoutEnded = false
            var progressed = false
            switch try channel.read(.stderr, into: buffer) {
            case .bytes(let count):
                progressed = true
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if announcement == nil {
                    try output.stderr(chunk)
                } else {
                    let before = announcement?.processGroup
                    let passed = announcement?.filter(chunk) ?? []
                    if !passed.isEmpty { try passed.withUnsafeBytes { try output.stderr($0) } }
                    if before == nil, let group = announcement?.processGroup { onAnnounced(group) }
                }
            case .endOfStream: stderrEnded = true
            case .wouldBlock: break
            }
            let announced = announcement?.isDecided ?? true
            if output.acceptsStdout && (announced || stderrEnded) {
                switch try channel.read(.stdout, into: buffer) {
                case .bytes(let count):
                    try output.stdout(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    progressed = true
                case .endOfStream: stdoutEnded = true
                case .wouldBlock: break
                }
            }
            if !progressed { return (moved, stdoutEnded && stderrEnded) }
            moved = true
        }
    }

    /// Closes the channel (without waiting long for the host).
    func close() {
        channel.close(deadline: Deadline(secondsFromNow: 2))
    }
}

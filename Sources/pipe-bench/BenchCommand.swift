import Foundation
import PipeCore
import PipeSSH

/// `pipe-bench`: Pipe's parts as whole processes, for `bench/run` to time next to OpenSSH (and a few measurements
/// that need one process: a warm session, cipher pairs, two sessions in two threads), and the forge intake's cost
/// over a long queue.
///
///     pipe-bench gen OUT [--big]
///     pipe-bench exec     HOST… -- COMMAND          connect, log in, run one command
///     pipe-bench sync     HOST… --dir D --key K --to R [--compression auto|none|gzip|zstd]
///     pipe-bench download HOST… --remote P --into L [--sessions 2]   (2: a big folder split across two sessions)
///     pipe-bench upload-plain HOST… --dir D --to R    the plain upload (local tar, no cache)
///     pipe-bench warm-sync HOST… --base A --changed C --key K --to R [--runs N]
///     pipe-bench streams  HOST… --files F1[,F2…]     one session per file, in parallel threads, `cat` each
///     pipe-bench ciphers  HOST… --file F
///     pipe-bench overlap  HOST… --dir D --key K --to R [--runs N]
///     pipe-bench on-host  HOST… [--runs N] -- COMMAND   (`{n}` in COMMAND becomes the round number)
///     pipe-bench tcp [--megabytes N]                 loopback TCP throughput, the physical ceiling
///     pipe-bench relay --to PORT --rtt-ms MS --mbit MBIT [--listen PORT]   a wide-area link on loopback
///     pipe-bench link-check --rtt-ms MS --mbit MBIT [--megabytes N]     that link's achieved round trip and rate
///     pipe-bench forge-intake --queued N [--pushes P]   a push delivery's cost with N forge runs in the queue
///
/// HOST… is `--port P --user U --identity F --known-hosts K [--work-dir W]` (127.0.0.1).
enum BenchCommand {
    static func main(_ arguments: [String]) -> Int32 {
        do {
            var options = Options(arguments.dropFirst())
            guard let command = options.positional.first else { throw BenchFailure("usage: pipe-bench COMMAND …") }
            options.positional.removeFirst()
            switch command {
            case "gen":
                guard let out = options.positional.first else { throw BenchFailure("usage: pipe-bench gen OUT") }
                print(
                    try BenchData(output: URL(fileURLWithPath: out)).generate(big: options.flag("big")), terminator: "")
            case "exec":
                let host = try SSHRemoteHost(connectingTo: options.host())
                let output = try host.capture(options.positional.joined(separator: " "), stdin: nil, timeoutSeconds: 60)
                host.session.disconnect()
                guard output.exit == .exited(0) else { throw BenchFailure("exit \(output.exit): \(output.stderrText)") }
            case "sync":
                let host = try SSHRemoteHost(connectingTo: options.host())
                host.syncStateDirectory = SSHRemoteHost.defaultSyncStateDirectory(
                    environment: ProcessInfo.processInfo.environment)
                let report = try host.synchronizeWorkspace(
                    directory: URL(fileURLWithPath: try options.value("dir")), cacheKey: try options.value("key"),
                    to: try options.value("to"))
                host.session.disconnect()
                print(describe(report))
            case "upload-plain":
                let host = try SSHRemoteHost(connectingTo: options.host())
                let summary = try host.upload(
                    directory: URL(fileURLWithPath: try options.value("dir")), to: try options.value("to"))
                host.session.disconnect()
                print("bytes=\(summary.bytes) seconds=\(format(summary.seconds))")
            case "download":
                let config = try options.host()
                let host = try SSHRemoteHost(connectingTo: config)
                if options.optional("sessions") == "2" {
                    host.secondSessionForDownloads = { try SSHSession.connect(to: config) }
                }
                let summary = try host.download(
                    try options.value("remote"), into: URL(fileURLWithPath: try options.value("into")),
                    cancellation: CancellationToken())
                host.session.disconnect()
                print(
                    "bytes=\(summary.bytes) seconds=\(format(summary.seconds)) streams=\(summary.streams) "
                        + "sessions=\(summary.sessions)")
            case "warm-sync":
                try warmSync(options)
            case "streams":
                try streams(options)
            case "ciphers":
                try ciphers(options)
            case "overlap":
                try overlap(options)
            case "on-host":
                try onHost(options)
            case "relay":
                try LinkCommands.relay(options)
            case "link-check":
                try LinkCommands.check(options)
            case "forge-intake":
                try ForgeIntakeBench.measure(
                    queued: Int(try options.value("queued")) ?? 0,
                    pushes: Int(options.optional("pushes") ?? "200") ?? 200)
            case "tcp":
                try LoopbackCeiling.measure(megabytes: Int(options.optional("megabytes") ?? "2000") ?? 2000)
            default:
                throw BenchFailure("unknown command \(command)")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("pipe-bench: \(error)\n".utf8))
            return 1
        }
    }

    static func describe(_ report: WorkspaceSyncReport) -> String {
        "kind=\(report.kind.rawValue) bytes=\(report.transfer.bytes) sent=\(report.entriesSent)/\(report.entries) "
            + "deleted=\(report.pathsDeleted) seconds=\(format(report.transfer.seconds)) "
            + "list=\(format(report.listSeconds)) digest=\(format(report.digestSeconds)) clone=\(format(report.cloneSeconds)) "
            + "manifest=\(report.hostSentManifest ? "sent" : "same") compressed=\(report.compression == .none ? "no" : report.compression.rawValue)"
    }

    static func format(_ seconds: Double) -> String { String(format: "%.4f", seconds) }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// On one session: the cache holds `base`; each round syncs `changed` (timed), then `base` again (not timed).
    private static func warmSync(_ options: Options) throws {
        let host = try SSHRemoteHost(connectingTo: options.host())
        let base = URL(fileURLWithPath: try options.value("base"))
        let changed = URL(fileURLWithPath: try options.value("changed"))
        let key = try options.value("key")
        let prefix = try options.value("to")
        let runs = Int(options.optional("runs") ?? "5") ?? 5
        _ = try host.synchronizeWorkspace(directory: base, cacheKey: key, to: "\(prefix)/warm-base")
        var totals = [Double]()
        var clones = [Double]()
        var digests = [Double]()
        for round in 0...runs {
            let report = try host.synchronizeWorkspace(directory: changed, cacheKey: key, to: "\(prefix)/warm-\(round)")
            guard report.kind == .delta else { throw BenchFailure("expected a delta sync, got \(describe(report))") }
            if round > 0 {  // round 0 warms up
                totals.append(report.transfer.seconds)
                clones.append(report.cloneSeconds)
                digests.append(report.digestSeconds)
            }
            _ = try host.capture("rm -rf \(prefix)/warm-\(round)", stdin: nil, timeoutSeconds: 120)
            _ = try host.synchronizeWorkspace(directory: base, cacheKey: key, to: "\(prefix)/warm-reset-\(round)")
            _ = try host.capture("rm -rf \(prefix)/warm-reset-\(round)", stdin: nil, timeoutSeconds: 120)
        }
        host.session.disconnect()
        let withoutClone = zip(totals, clones).map { $0 - $1 }
        print(
            "warm_total=\(format(median(totals))) warm_without_clone=\(format(median(withoutClone))) "
                + "clone=\(format(median(clones))) digest=\(format(median(digests)))")
    }

    /// One session per file, each in its own thread, each reading its file with `cat`: the whole time, connects
    /// included, and the bytes moved.
    private static func streams(_ options: Options) throws {
        let files = try options.value("files").split(separator: ",").map(String.init)
        let config = try options.host()
        let started = Date()
        let results = ThreadResults(count: files.count)
        let group = DispatchGroup()
        for (index, file) in files.enumerated() {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let host = try SSHRemoteHost(connectingTo: config)
                    var bytes = 0
                    let exit = try host.runStoppable(
                        "cat \(file)", stdin: nil, timeoutSeconds: 300, cancellation: CancellationToken(),
                        onStarted: { _ in }, onStdout: { bytes += $0.count }, onStderr: { _ in })
                    host.session.disconnect()
                    results.set(index, exit == .exited(0) ? .success(bytes) : .failure(BenchFailure("\(exit)")))
                } catch {
                    results.set(index, .failure(error))
                }
            }
        }
        group.wait()
        let seconds = Date().timeIntervalSince(started)
        let bytes = try results.all().reduce(0, +)
        print(
            "sessions=\(files.count) bytes=\(bytes) seconds=\(format(seconds)) MBps=\(Int(Double(bytes) / seconds / 1e6))"
        )
    }

    /// Every cipher/MAC pair this libssh2 and the host share: MB/s reading `file` with `cat` (median of 3).
    private static func ciphers(_ options: Options) throws {
        let file = try options.value("file")
        let config = try options.host()
        let supported = try SSHSession.supportedAlgorithms()
        for cipher in supported.ciphers {
            for mac in supported.macs {
                let session: SSHSession
                do {
                    session = try SSHSession.connect(
                        to: config, algorithms: SSHAlgorithms(ciphers: [cipher], macs: [mac]))
                } catch {
                    continue  // the host does not offer this pair
                }
                let host = SSHRemoteHost(session: session)
                var rates = [Double]()
                for _ in 0..<4 {
                    var bytes = 0
                    let started = Date()
                    _ = try host.runStoppable(
                        "cat \(file)", stdin: nil, timeoutSeconds: 300, cancellation: CancellationToken(),
                        onStarted: { _ in }, onStdout: { bytes += $0.count }, onStderr: { _ in })
                    rates.append(Double(bytes) / Date().timeIntervalSince(started) / 1e6)
                }
                session.disconnect()
                print("\(cipher) \(mac) MBps=\(Int(median(Array(rates.dropFirst()))))")
            }
        }
    }

    /// A command's own time on the host: median time of `capture(COMMAND)` minus that of `capture("true")`, on
    /// one warm session.
    private static func onHost(_ options: Options) throws {
        let host = try SSHRemoteHost(connectingTo: options.host())
        let command = options.positional.joined(separator: " ")
        let runs = Int(options.optional("runs") ?? "5") ?? 5
        func time(_ line: String) throws -> Double {
            var values = [Double]()
            for round in 0...runs {
                let started = Date()
                let output = try host.capture(
                    line.replacingOccurrences(of: "{n}", with: "\(round)"), stdin: nil, timeoutSeconds: 120)
                guard output.exit == .exited(0) else {
                    throw BenchFailure("\(line): \(output.exit) \(output.stderrText)")
                }
                if round > 0 { values.append(Date().timeIntervalSince(started)) }
            }
            return median(values)
        }
        let empty = try time("true")
        let full = try time(command)
        host.session.disconnect()
        print("exec=\(format(empty)) command=\(format(full)) own=\(format(full - empty))")
    }

    /// What overlapping the simulator listing with the workspace sync would save: both one after the other on one
    /// session, against each on its own session in its own thread (medians).
    private static func overlap(_ options: Options) throws {
        let config = try options.host()
        let directory = URL(fileURLWithPath: try options.value("dir"))
        let key = try options.value("key")
        let prefix = try options.value("to")
        let runs = Int(options.optional("runs") ?? "5") ?? 5
        let listing = "xcrun simctl list devices available -j"
        let first = try SSHRemoteHost(connectingTo: config)
        let second = try SSHRemoteHost(connectingTo: config)
        _ = try first.synchronizeWorkspace(directory: directory, cacheKey: key, to: "\(prefix)/overlap-warm")
        var lists = [Double]()
        var syncs = [Double]()
        var sequential = [Double]()
        var parallel = [Double]()
        for round in 0..<runs {
            var started = Date()
            _ = try first.capture(listing, stdin: nil, timeoutSeconds: 60)
            let listed = Date()
            _ = try first.synchronizeWorkspace(directory: directory, cacheKey: key, to: "\(prefix)/overlap-s\(round)")
            sequential.append(Date().timeIntervalSince(started))
            lists.append(listed.timeIntervalSince(started))
            syncs.append(Date().timeIntervalSince(listed))
            started = Date()
            let group = DispatchGroup()
            group.enter()
            let results = ThreadResults(count: 1)
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    _ = try second.capture(listing, stdin: nil, timeoutSeconds: 60)
                    results.set(0, .success(0))
                } catch {
                    results.set(0, .failure(error))
                }
            }
            _ = try first.synchronizeWorkspace(directory: directory, cacheKey: key, to: "\(prefix)/overlap-p\(round)")
            group.wait()
            _ = try results.all()
            parallel.append(Date().timeIntervalSince(started))
        }
        first.session.disconnect()
        second.session.disconnect()
        print(
            "list=\(format(median(lists))) sync=\(format(median(syncs))) sequential=\(format(median(sequential))) "
                + "overlapped=\(format(median(parallel))) saving=\(format(median(sequential) - median(parallel)))")
    }
}

/// Results filled in by several threads.
final class ThreadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<Int, Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<Int, Error>) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    func all() throws -> [Int] {
        lock.lock()
        defer { lock.unlock() }
        return try results.map { try ($0 ?? .failure(BenchFailure("a thread did not finish"))).get() }
    }
}

/// `--name value` options, `--flag` switches and positional words (everything after `--` is positional).
struct Options {
    var named: [String: String] = [:]
    var flags = Set<String>()
    var positional = [String]()

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments[...]
        while let argument = rest.first {
            rest = rest.dropFirst()
            if argument == "--" {
                positional += rest
                break
            }
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                if let value = rest.first, !value.hasPrefix("--") {
                    if ["big"].contains(name) {
                        flags.insert(name)
                    } else {
                        named[name] = value
                        rest = rest.dropFirst()
                    }
                } else {
                    flags.insert(name)
                }
            } else {
                positional.append(argument)
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func optional(_ name: String) -> String? { named[name] }

    func value(_ name: String) throws -> String {
        guard let value = named[name] else { throw BenchFailure("--\(name) is required") }
        return value
    }

    func host() throws -> HostConfig {
        guard let port = Int(try value("port")) else { throw BenchFailure("--port must be a number") }
        return HostConfig(
            name: "bench", address: "127.0.0.1", port: port, user: try value("user"),
            identityFile: try value("identity"), knownHostsFile: try value("known-hosts"),
            workDirectory: optional("work-dir") ?? "pipe-work", connectTimeoutSeconds: 15,
            uploadCompression: try optional("compression").map {
                guard let choice = UploadCompression(rawValue: $0) else {
                    throw BenchFailure("--compression is auto, none, gzip or zstd")
                }
                return choice
            } ?? .auto)
    }
}

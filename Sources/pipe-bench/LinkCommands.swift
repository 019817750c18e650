import Foundation
import PipeLink

#if canImport(Glibc)
    import Glibc
#endif

/// `pipe-bench relay` and `pipe-bench link-check`: the wide-area link `bench/run` puts between Pipe (and OpenSSH)
/// and the emulated host, and the measurement of how closely it keeps to its profile.
enum LinkCommands {
    /// Relays 127.0.0.1:`--listen` (0 or absent: a free port) to `--to` until killed. Prints `port=N` once it
    /// listens, then a line per ended connection with what it moved and how late it handed bytes on.
    static func relay(_ options: Options) throws {
        guard let target = Int(try options.value("to")) else { throw BenchFailure("--to must be a port number") }
        let listen = Int(options.optional("listen") ?? "0") ?? 0
        let relay = try LinkRelay(profile: try profile(options), listenPort: listen, targetPort: target) { up, down in
            var both = up
            both.add(down)
            print("connection up_bytes=\(up.bytes) down_bytes=\(down.bytes) \(lateness(both))")
            fflush(stdout)
        }
        print("port=\(relay.port)")
        fflush(stdout)
        while true { sleep(3600) }
    }

    /// Probes a relay of the profile in this process: round trips of one byte, `--megabytes` each way.
    static func check(_ options: Options) throws {
        let profile = try profile(options)
        let megabytes = Double(options.optional("megabytes") ?? "20") ?? 20
        let measured = try LinkProbe.measure(profile, bulkBytes: Int(megabytes * 1e6))
        let rates = [profile.bytesPerSecond, measured.upBytesPerSecond, measured.downBytesPerSecond]
            .map { String(format: "%.1f", $0 / 1e6) }
        print(
            "configured_rtt_ms=\(String(format: "%.1f", profile.roundTripSeconds * 1000)) "
                + "rtt_ms=\(String(format: "%.1f", measured.roundTripSeconds * 1000)) "
                + "configured_MBps=\(rates[0]) up_MBps=\(rates[1]) down_MBps=\(rates[2]) "
                + lateness(measured.statistics))
    }

    private static func profile(_ options: Options) throws -> LinkProfile {
        guard let milliseconds = Double(try options.value("rtt-ms")), let megabits = Double(try options.value("mbit"))
        else { throw BenchFailure("--rtt-ms and --mbit are numbers") }
        do {
            return try LinkProfile(roundTripSeconds: milliseconds / 1000, bitsPerSecond: megabits * 1e6)
        } catch {
            throw BenchFailure("\(error)")
        }
    }

    private static func lateness(_ statistics: LinkStatistics) -> String {
        "late_mean_ms=\(String(format: "%.3f", statistics.latenessMean * 1000)) "
            + "late_max_ms=\(String(format: "%.1f", statistics.latenessMaximum * 1000)) "
            + "late_chunks=\(statistics.lateChunks)/\(statistics.chunks)"
    }
}

import Foundation
import PipeBasics
import PipeCore

/// The workspace caches `pipe hosts clean` removes: `<work dir>/cache/<key>/` folders whose `manifest` (or, for a
/// copy whose sync never finished, the folder itself) was last changed more than `--cache-days` ago.
///
/// A cache a sync holds (its `<key>/lock` folder exists, see `RemoteScript.syncWorkspace`) is never touched: the
/// clean-up takes that same lock (`mkdir` is atomic) before it removes anything, so a sync that starts meanwhile
/// waits for it and then finds no copy (a full transfer) rather than a half-removed one.
enum HostsCleanCaches {
    /// The default retention, in days.
    static let defaultDays = 14

    /// What happened to one cache folder.
    struct Removal: Equatable {
        enum State: Equatable {
            /// Removed (or, with `--dry-run`, would be).
            case removed
            /// Past the retention, but a sync holds its lock: left alone.
            case busy
            /// Something in it could not be removed.
            case failed
        }

        var key: String
        var state: State
        var files = 0
        var bytes: Int64 = 0
    }

    /// `$1`: the work folder (relative to the home, or absolute); `$2`: the retention in minutes; `$3`: `remove` or
    /// `measure`. Prints `pipe-cache <key> <files> <bytes>` for each cache removed (or to remove),
    /// `pipe-cache-busy <key>` for one a sync holds and `pipe-cache-failed <key>` for one that stayed. Only
    /// folders named like a cache key (lowercase hex) are considered.
    static let script =
        "d=$1; m=$2; case \"$d\" in '~/'*) d=${d#??} ;; esac; [ -d \"$d/cache\" ] || exit 0; "
        + "cd \"$d/cache\" || exit 1; for c in *; do [ -d \"$c\" ] || continue; "
        + "case \"$c\" in '' | *[!0-9a-f]*) continue ;; esac; r=\"$c/manifest\"; [ -e \"$r\" ] || r=\"$c\"; "
        + "[ -n \"$(find \"$r\" -prune -mmin \"+$m\" 2>/dev/null)\" ] || continue; "
        + "if [ \"$3\" = remove ]; then mkdir \"$c/lock\" 2>/dev/null || { echo \"pipe-cache-busy $c\"; continue; }; "
        + "echo $$ >\"$c/lock/pid\"; elif [ -d \"$c/lock\" ]; then echo \"pipe-cache-busy $c\"; continue; fi; "
        + "n=0; s=0; for z in $(find \"$c\" -type f ! -path \"$c/lock/*\" -exec stat -f %z {} +); do "
        + "n=$((n+1)); s=$((s+z)); done; "
        + "if [ \"$3\" != remove ]; then echo \"pipe-cache $c $n $s\"; continue; fi; "
        + "find \"$c\" -mindepth 1 -maxdepth 1 ! -name lock -exec rm -rf {} +; "
        + "if [ -n \"$(find \"$c\" -mindepth 1 -maxdepth 1 ! -name lock)\" ]; then rm -rf \"$c/lock\"; "
        + "echo \"pipe-cache-failed $c\"; continue; fi; rm -rf \"$c/lock\"; rm -d \"$c\" 2>/dev/null; "
        + "echo \"pipe-cache $c $n $s\"; done; exit 0"

    /// The command that cleans (or, with `dryRun`, measures) the caches in `workDirectory` older than `days`.
    static func command(workDirectory: String, days: Int, dryRun: Bool) -> String {
        ShellQuote.join([
            "/bin/sh", "-c", script, "pipe-clean-caches", workDirectory, String(days * 24 * 60),
            dryRun ? "measure" : "remove",
        ])
    }

    /// Reads what `script` printed.
    static func read(_ stdout: String) -> [Removal] {
        stdout.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            switch (words.first, words.count) {
            case ("pipe-cache", 4):
                return Removal(key: words[1], state: .removed, files: Int(words[2]) ?? 0, bytes: Int64(words[3]) ?? 0)
            case ("pipe-cache-busy", 2): return Removal(key: words[1], state: .busy)
            case ("pipe-cache-failed", 2): return Removal(key: words[1], state: .failed)
            default: return nil
            }
        }
    }

    /// The lines `pipe hosts clean` prints about caches, one per host that had any past the retention.
    static func report(_ removals: [(host: String, removals: [Removal])], days: Int, dryRun: Bool) -> [String] {
        removals.compactMap { host, removals in
            guard !removals.isEmpty else { return nil }
            let removed = removals.filter { $0.state == .removed }
            let bytes = removed.reduce(Int64(0)) { $0 + $1.bytes }
            let files = removed.reduce(0) { $0 + $1.files }
            var line =
                "\(host): " + (dryRun ? "would free " : "freed ")
                + "\(RunsFormatting.bytes(bytes)) (\(bytes) bytes, \(files) files) in "
                + (removed.count == 1 ? "1 workspace cache" : "\(removed.count) workspace caches")
                + " unused for more than \(days) days"
            if !removed.isEmpty { line += " (\(removed.map(\.key).joined(separator: ", ")))" }
            let busy = removals.filter { $0.state == .busy }.map(\.key)
            if !busy.isEmpty { line += "; in use by a sync, left alone: \(busy.joined(separator: ", "))" }
            return line
        }
    }
}

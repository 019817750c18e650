import PipeBasics

/// Removing a host's build caches: those unused for longer than `max-age`, then the least recently used until all
/// of them fit in `max-size` (the hosts file's `build-cache:`), or every one (`pipe hosts clean --build-caches`).
///
/// A cache a run holds (its lease in the run store) is never touched, nor one a sync holds (its `lock` folder):
/// the removal takes that lock itself, so a sync that starts meanwhile waits and then finds no copy. A cache's last
/// use is its last sync's mark (`synced`), else the folder's own time. Only folders named like a build cache
/// (`BuildCacheIdentity.isCacheName`) are considered.
public enum BuildCacheEviction {
    public enum Mode: String, Sendable {
        /// By `max-age`, then by `max-size`.
        case evict
        /// Every cache not in use.
        case all
    }

    /// What happened to one cache.
    public struct Removal: Equatable, Sendable {
        public enum State: Equatable, Sendable {
            /// Removed (or, measuring, would be).
            case removed
            /// A run or a sync holds it: left alone.
            case busy
            /// Something in it could not be removed.
            case failed
        }

        public var name: String
        public var state: State
        public var bytes: Int64 = 0

        public init(name: String, state: State, bytes: Int64 = 0) {
            self.name = name
            self.state = state
            self.bytes = bytes
        }
    }

    /// `$1`: the work folder; `$2`: `evict` or `all`; `$3`: the age limit in minutes; `$4`: the size limit in KiB;
    /// `$5`: `remove` or `measure`; then the names of the caches runs hold. Prints `pipe-build-cache <name>
    /// <bytes>` for each cache removed (or to remove), `pipe-build-cache-busy <name>` for one in use and
    /// `pipe-build-cache-failed <name>` for one that stayed. Uses only `find`, `du`, `stat -f %m`, `sort`, `awk`, and a fixed number
    /// of them however many caches there are: it runs at the end of every run that used a cache.
    static let script =
        "d=$1; mode=$2; age=$3; max=$4; act=$5; shift 5; case \"$d\" in '~/'*) d=${d#??} ;; esac; "
        + "[ -d \"$d/cache\" ] || exit 0; cd \"$d/cache\" || exit 1; n=; r=; for c in *; do [ -d \"$c\" ] || continue; "
        + "case \"$c\" in untrusted-*-* | trusted-*-* | release-*-*) ;; *) continue ;; esac; "
        + "case \"$c\" in *[!a-z0-9-]*) continue ;; esac; h=; for x in \"$@\"; do [ \"$x\" != \"$c\" ] || h=1; done; "
        + "if [ -n \"$h\" ] || [ -d \"$c/lock\" ]; then echo \"pipe-build-cache-busy $c\"; continue; fi; "
        + "n=\"$n $c\"; if [ -e \"$c/synced\" ]; then r=\"$r $c/synced\"; else r=\"$r $c\"; fi; done; "
        + "[ -n \"$n\" ] || exit 0; "
        // Names are [a-z0-9-] only, so the lists split safely; a cache's last use is its `synced` mark's time.
        + "for e in $({ echo '#old'; find $r -prune -mmin \"+$age\"; echo '#size'; du -sk $n; echo '#ref'; "
        + "printf '%s\\n' $r; echo '#time'; stat -f %m $r; } 2>/dev/null | awk '/^#/ { p = $0; next } "
        + "{ x = $NF; sub(/\\/synced$/, \"\", x) } p == \"#old\" { o[x] = 1 } p == \"#size\" { k[x] = $1 } "
        + "p == \"#ref\" { m++; n[m] = x } p == \"#time\" { j++; print $1, o[n[j]] + 0, k[n[j]] + 0, n[j] }' "
        + "| sort -n -k 1 | awk -v mode=\"$mode\" -v max=\"$max\" '{ o[NR] = $2; k[NR] = $3; n[NR] = $4; s += $3 } "
        + "END { for (i = 1; i <= NR; i++) if (mode == \"all\" || o[i]) { print n[i] \":\" k[i]; s -= k[i]; g[i] = 1 } "
        + "for (i = 1; i <= NR && s > max; i++) if (!g[i]) { print n[i] \":\" k[i]; s -= k[i] } }'); "
        + "do c=${e%%:*}; b=$(( ${e#*:} * 1024 )); "
        + "if [ \"$act\" != remove ]; then echo \"pipe-build-cache $c $b\"; continue; fi; "
        + "mkdir \"$c/lock\" 2>/dev/null || { echo \"pipe-build-cache-busy $c\"; continue; }; "
        + "find \"$c\" -mindepth 1 -maxdepth 1 ! -name lock -exec rm -rf {} +; "
        + "if [ -n \"$(find \"$c\" -mindepth 1 -maxdepth 1 ! -name lock)\" ]; then rm -rf \"$c/lock\"; "
        + "echo \"pipe-build-cache-failed $c\"; continue; fi; rm -rf \"$c/lock\"; rm -d \"$c\" 2>/dev/null; "
        + "echo \"pipe-build-cache $c $b\"; done; exit 0"

    /// The command that removes (or, `measure`, lists) the caches of `workDirectory` the policy says go.
    public static func command(
        workDirectory: String, mode: Mode, policy: BuildCachePolicy, leased: [String], measureOnly: Bool
    ) -> String {
        let minutes = max(0, Int(policy.maxAgeSeconds / 60))
        let kibibytes = max(0, policy.maxSizeBytes / 1024)
        return ShellQuote.join(
            [
                "/bin/sh", "-c", script, "pipe-build-caches", workDirectory, mode.rawValue, String(minutes),
                String(kibibytes), measureOnly ? "measure" : "remove",
            ] + leased.filter(BuildCacheIdentity.isCacheName))
    }

    /// Reads what `script` printed; lines that are not its own are ignored.
    public static func read(_ stdout: String) -> [Removal] {
        stdout.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 2, BuildCacheIdentity.isCacheName(words[1]) else { return nil }
            switch (words[0], words.count) {
            case ("pipe-build-cache", 3): return Removal(name: words[1], state: .removed, bytes: Int64(words[2]) ?? 0)
            case ("pipe-build-cache-busy", 2): return Removal(name: words[1], state: .busy)
            case ("pipe-build-cache-failed", 2): return Removal(name: words[1], state: .failed)
            default: return nil
            }
        }
    }
}

import PipeBasics

/// The POSIX `sh` scripts Pipe runs on a host, and the command lines that start them.
///
/// Each script is a constant, started as `exec /bin/sh -c '<script>' <name> <arguments…>`: values reach it only as
/// positional parameters quoted with `ShellQuote`, never pasted into script text, and the login shell (zsh on a Mac)
/// sees nothing but quoted words. The scripts use only what a stock macOS has — `sh`, `kill`, `ps`, `sleep`, `tar`
/// (flags common to bsdtar and GNU tar), `tee`, `openssl dgst -sha256`, `wc`, `cat`, `mkdir` — and avoid what differs
/// between dash (Debian's `sh`) and bash 3.2 (macOS's `sh`): no `set -m` (dash turns job control off without a
/// terminal), no `kill --` (dash rejects it), `kill -SIG -PGID` instead.
enum RemoteScript {
    /// The command line that runs `script` with `arguments` as `$1…`.
    static func commandLine(script: String, name: String, arguments: [String]) -> String {
        ShellQuote.join(["exec", "/bin/sh", "-c", script, name] + arguments)
    }

    /// Runs `$1` after printing `$2 <pgid>` to stderr. `$1`: command; `$2`: marker.
    ///
    /// The command is parsed and run by this shell (`eval`, after `shift 2`, so it sees no positional parameters and
    /// no variable of ours, as under `sh -c "$1"`): a syntax error anywhere in it still runs nothing. A command
    /// that is itself `exec /bin/sh -c '<script>' …` (`commandLine`) then starts one shell fewer than through
    /// `exec /bin/sh -c "$1"`, about 1 ms for every command on these machines.
    ///
    /// OpenSSH's sshd starts every session's command with `setsid()`, so the login shell that runs this is the leader
    /// of a fresh process group whose id is its pid (`$$`); `exec` keeps that pid for the command. `kill -0 -$$`
    /// checks it (a group with that id exists only if this process leads it) before anything runs, so Pipe never
    /// records a group it could not stop — or one it must not kill.
    static let groupLeader =
        "kill -0 -$$ 2>/dev/null || { echo \"pipe: the host's sshd did not start this command as the leader of its "
        + "own process group, so Pipe could not stop it later; not running it\" >&2; exit 125; }; "
        + "echo \"$2 $$\" >&2; eval \"shift 2; $1\""

    /// Stops process group `$1`: SIGTERM, up to `$2` tenths of a second for it to end, then SIGKILL. Prints `gone`,
    /// `term` or `kill` (how it ended) and exits 0 once no member is left; exits 1 if one survives SIGKILL.
    ///
    /// Zombies do not count: they are dead, and are reaped by their parent or init, not by us.
    static let killGroup =
        "p=$1; n=$2; [ \"$p\" -gt 1 ] 2>/dev/null || { echo \"pipe: refusing to signal process group '$p'\" >&2; "
        + "exit 2; }; alive() { ps -A -o pgid= -o stat= | while read g s; do if [ \"$g\" = \"$p\" ]; then "
        + "case \"$s\" in Z*) ;; *) echo y; break;; esac; fi; done; }; "
        + "[ -n \"$(alive)\" ] || { echo gone; exit 0; }; kill -TERM -\"$p\" 2>/dev/null; "
        + "i=0; while [ \"$i\" -lt \"$n\" ] && [ -n \"$(alive)\" ]; do sleep 0.1; i=$((i+1)); done; "
        + "[ -n \"$(alive)\" ] || { echo term; exit 0; }; kill -KILL -\"$p\" 2>/dev/null; "
        + "i=0; while [ \"$i\" -lt 50 ] && [ -n \"$(alive)\" ]; do sleep 0.1; i=$((i+1)); done; "
        + "[ -n \"$(alive)\" ] || { echo kill; exit 0; }; "
        + "echo \"pipe: process group $p is still running after SIGKILL\" >&2; exit 1"

    /// Extracts the tar stream on stdin into folder `$1` (created) and prints `pipe-sha256 <hex>` of the stream on
    /// stdout; exits with tar's status.
    ///
    /// The digest is taken by a `tee` branch before tar; tar may stop reading at the archive's end-of-file blocks,
    /// so `cat` drains the rest, or `tee` would die of SIGPIPE and the digest see a truncated stream.
    static let extractUpload =
        "mkdir -p -- \"$1\" || exit 1; exec 4>&1; "
        + "{ tee /dev/fd/3 | { h=$(openssl dgst -sha256); echo \"pipe-sha256 ${h##* }\"; } >&4; } 3>&1 "
        + "| { tar -xf - -C \"$1\"; s=$?; cat >/dev/null; exit \"$s\"; }"

    /// Writes a tar stream of `$2` (inside folder `$1`) on stdout, and on stderr the lines `pipe-tar-status <n>` and
    /// `pipe-sha256 <hex>` of that very stream (or `pipe-missing` when `$1/$2` does not exist). The digest covers
    /// every byte, so it checks the stream's length as well; Pipe counts the bytes it receives.
    ///
    /// `$3` is the part: `0` sends the whole item. `1` and `2` split a folder of at least `$4` bytes (and two files)
    /// between two streams, for two sessions in two threads (libssh2 1.10's cipher, not the link, bounds one
    /// channel): both runs make the same plan on their own — the folder's files by size, largest first, each to the
    /// lighter part — so no list travels and no round trip is added. Each part holds every folder (either part may
    /// arrive first) and its files; part 1 also holds the symlinks and other entries.
    /// Before its stream each prints `pipe-plan split <cksum of the plan> <total bytes> <files> <its bytes>`, which
    /// Pipe compares between the parts; part 1 prints `pipe-plan whole` and sends everything when the item is
    /// smaller (`du -sk` says so without listing it), not a folder, or has a name with a newline or a backslash
    /// (tar's `-T` lists are line-based, and GNU tar unquotes backslashes in them); part 2 then sends nothing.
    ///
    /// The plan's lists live in `mktemp` files, removed on every exit (a stopped download's too: TERM, INT and HUP
    /// exit through the trap). Any listing that fails (an unreadable folder) makes part 1 send the whole item, so
    /// tar itself reports what it cannot read instead of a half that silently lacks it; part 1 always prints its
    /// plan line, and Pipe refuses a part 1 without one.
    ///
    /// Three processes carry the stream: `tar`, one `tee` writing it to the channel (`/dev/fd/3`, a copy of stdout)
    /// and `openssl`. Linux cannot reopen a socket through `/dev/fd` (an sshd that gives commands a socket rather
    /// than a pipe): then `tee` writes into a pipe to `cat` instead, one process and one copy more.
    static let archiveDownload =
        "[ -e \"$1/$2\" ] || [ -L \"$1/$2\" ] || { echo pipe-missing >&2; exit 66; }; exec 3>&1; k=${3:-0}; "
        + "set -- -C \"$1\" \"./$2\" \"$1\" \"$2\" \"$4\"; "
        + "if [ \"$k\" != 0 ]; then p=; if [ -d \"$4/$5\" ] && [ ! -L \"$4/$5\" ]; then u=0; "
        + "[ \"$k\" = 2 ] || { u=$(du -sk \"$4/$5\" 2>/dev/null); u=${u%%[!0-9]*}; }; "
        + "if [ \"$k\" = 2 ] || [ \"${u:-0}\" -ge $((${6:-0} / 1024)) ]; then "
        + "l=$(mktemp \"${TMPDIR:-/tmp}/pipe-part.XXXXXX\") || exit 1; trap 'rm -f \"$l\" \"$l.f\" \"$l.w\"' EXIT; "
        + "trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM; "
        + "p=$({ cd -- \"$4\" && [ -z \"$(find \"./$5\" \\( -name '*\\\\*' -o -name '*\n*' \\) -print)\" ] "
        + "&& find \"./$5\" -type f -exec wc -c {} + >\"$l.w\" && LC_ALL=C sort -rn \"$l.w\" >\"$l.f\" "
        + "&& find \"./$5\" -type d >\"$l\" "
        + "&& { [ \"$k\" != 1 ] || find \"./$5\" ! -type f ! -type d >>\"$l\"; } "
        + "&& awk -v k=\"$k\" -v m=\"$6\" -v L=\"$l\" '{ s = $1 + 0; n = $0; sub(/^ *[0-9]+ /, \"\", n); "
        + "if (substr(n, 1, 2) != \"./\") next; t += s; c++; if (a <= b) { a += s; q = 1 } else { b += s; q = 2 } "
        + "if (q == k) print n >>L } END { if (c < 2 || t < m) print \"whole\"; "
        + "else print \"split\", t, c, (k == 1 ? a : b) }' \"$l.f\"; } 2>/dev/null) || p=; fi; fi; "
        + "case $p in \"split \"*) c=$(cksum <\"$l.f\") || exit 1; echo \"pipe-plan split $c ${p#split }\" >&2; "
        + "set -- -C \"$4\" --no-recursion -T \"$l\" ;; *) echo pipe-plan whole >&2; [ \"$k\" = 1 ] || exit 0; "
        + "set -- \"$1\" \"$2\" \"$3\" ;; esac; else set -- \"$1\" \"$2\" \"$3\"; fi; "
        + "if { : >/dev/fd/3; } 2>/dev/null; then "
        + "{ tar -cf - \"$@\"; echo \"pipe-tar-status $?\" >&2; } | tee /dev/fd/3 "
        + "| { h=$(openssl dgst -sha256); echo \"pipe-sha256 ${h##* }\" >&2; }; else "
        + "{ { tar -cf - \"$@\"; echo \"pipe-tar-status $?\" >&2; } | tee /dev/fd/4 "
        + "| { h=$(openssl dgst -sha256); echo \"pipe-sha256 ${h##* }\" >&2; }; } 4>&1 | cat; fi"

    /// Brings the cached copy of a workspace up to date and clones it into a run folder. `$1`: the cache folder
    /// (`<work dir>/cache/<key>`); `$2`: the run folder to create (must not exist, an empty folder excepted); `$3`: a
    /// token naming this sync's manifest file; `$4`: how many 50 ms turns to wait for the cache's lock; `$5`: the token
    /// of the manifest this coordinator remembers sending there (`WorkspaceSyncMemory`), or `-`.
    ///
    /// 1. Takes the cache's lock: `mkdir` of `$1/lock` is atomic on every filesystem; the holder's pid goes in it,
    ///    so a lock whose holder died is broken (under `$1/lock.break`, so only one waiter breaks it). Waiting
    ///    prints `pipe-lock-wait` on stderr every ~5 s, which keeps Pipe's stall timer from firing.
    /// 2. Prints `pipe-zstd` when the host has `zstd` (on PATH, else Homebrew's `/opt/homebrew/bin/zstd` or
    ///    `/usr/local/bin/zstd`, which a non-login shell's PATH lacks; only shell builtins look), then
    ///    `pipe-manifest same` when the copy's manifest is the one `$5` names (`$1/manifest.id` holds `$5`),
    ///    else `pipe-manifest <bytes>` and the manifest, or `pipe-manifest none` when there is no usable copy: no
    ///    `manifest`, no `tree`, or `manifest.id` says `dirty`.
    /// 3. Reads `pipe-sync full|delta|patch tar|gzip|zstd <n>` and `n` paths to delete (one a line) from stdin
    ///    (`gzip`, `zstd`: the archive comes compressed, for `gzip -dc` or `zstd -dc`), writes `dirty` to
    ///    `manifest.id` (the copy is dirty until its new manifest is in place: a sync that dies from here on leaves a
    ///    copy the next one rebuilds), removes what an older sync left (`manifest.base`, `manifest.incoming.*`) if
    ///    anything, empties the tree for `full`, deletes the paths (refusing `.`, `..` and empty components), then
    ///    extracts the rest of stdin — a tar of `tree/…` entries and `manifest.incoming.$3` — into the cache
    ///    folder. The archive is not digested here: SSH's MAC already vouches for every byte of the channel, and
    ///    an archive cut short cannot pass for whole, because its last member is the manifest: tar fails on a
    ///    member cut in its data, and an archive cut between members lacks `manifest.incoming.$3`, which is
    ///    refused below. (Digesting it took a `tee` and an `openssl` copying every byte once more: 15 % of a
    ///    full upload's time on a 2-core host.)
    /// 4. Puts the new manifest in place — for `patch`, the incoming lines appended to `manifest`
    ///    (`WorkspaceManifest.patch`) —, writes `$3` to `$1/manifest.id`, prints `pipe-applied`, clones `tree` into
    ///    `$2` with `cp -c -R -p` (APFS clones on a Mac; never hard links: a build may edit files in place) and
    ///    prints `pipe-cloned`. The dirty mark is a shell redirection, not a process: a warm delta starts two
    ///    processes besides the archive's (`cat` and `rm` for a patch, `mv` otherwise), where moving the manifest
    ///    aside and back took five.
    ///
    /// In place (`$2` is `-`: a build cache, whose tree the run uses where it is), nothing is cloned and no run
    /// folder is made. Before its manifest the host lists what changed in the tree since the last sync's mark
    /// (`$1/synced`): `pipe-touched <bytes> <bytes>` and two lists of NUL-separated `./path` records, the entries
    /// whose change time is newer (`find -cnewer`) and the entries of those that are folders
    /// (`WorkspaceTouchedTree`); a listing that fails or passes 16 MiB counts as no usable copy. The mark is
    /// written again once the archive is in place, before the manifest's id, with the sync's token as its content:
    /// writing data always moves a file's times, where truncating an empty file may not.
    ///
    /// Exit 73: the run folder exists or cannot be made; 74: the cache cannot be changed; 75: the lock stayed taken;
    /// 2: a malformed request or an archive without its manifest; else tar's status. The lock goes on every exit (a
    /// trap), and with a killed holder.
    static let syncWorkspace =
        "c=$1; d=$2; t=$3; n=$4; m=$5; "
        + "if [ \"$d\" != - ] && { [ -e \"$d\" ] || [ -L \"$d\" ]; }; then rmdir \"$d\" 2>/dev/null || { echo \"pipe: $d already exists "
        + "on the host; a run folder is always new\" >&2; exit 73; }; fi; "
        + "p=${d%/*}; [ -n \"$p\" ] && [ \"$p\" != \"$d\" ] || p=.; "
        + "mkdir -p \"$p\" \"$c\" 2>/dev/null || { mkdir -p \"$p\" || exit 73; mkdir -p \"$c\" || exit 74; }; i=0; e=0; "
        + "until mkdir \"$c/lock\" 2>/dev/null; do h=$(cat \"$c/lock/pid\" 2>/dev/null); "
        + "if [ -n \"$h\" ]; then e=0; else e=$((e+1)); fi; "
        + "if { [ -n \"$h\" ] && ! kill -0 \"$h\" 2>/dev/null; } || [ \"$e\" -gt 100 ]; then "
        + "if mkdir \"$c/lock.break\" 2>/dev/null; then "
        + "[ \"$(cat \"$c/lock/pid\" 2>/dev/null)\" = \"$h\" ] && rm -rf \"$c/lock\"; rmdir \"$c/lock.break\"; e=0; "
        + "continue; fi; fi; i=$((i+1)); [ $((i % 100)) -ne 0 ] || echo \"pipe-lock-wait ${h:-?}\" >&2; "
        + "[ \"$i\" -lt \"$n\" ] || { echo \"pipe: the workspace cache $c on the host is still locked by process "
        + "${h:-?}; if no sync is running there, remove $c/lock\" >&2; exit 75; }; sleep 0.05; done; "
        + "echo $$ >\"$c/lock/pid\"; trap 'rm -rf \"$c/lock\"' EXIT; trap 'exit 129' HUP; trap 'exit 130' INT; "
        + "trap 'exit 143' TERM; "
        + "y=; if command -v zstd >/dev/null 2>&1; then y=zstd; else for y in /opt/homebrew/bin/zstd "
        + "/usr/local/bin/zstd ''; do [ ! -x \"$y\" ] || break; done; fi; [ -z \"$y\" ] || echo pipe-zstd; "
        + "r=; if [ \"$d\" = - ]; then : >\"$c/touched\" && : >\"$c/children\" || exit 74; "
        + "if [ -f \"$c/synced\" ] && [ -d \"$c/tree\" ]; then "
        + "( cd \"$c/tree\" && find . -cnewer ../synced -print0 >../touched "
        + "&& find . -cnewer ../synced -type d -exec find {} -mindepth 1 -maxdepth 1 -print0 \\; >../children ) "
        + "2>/dev/null || r=1; [ -n \"$r\" ] || [ $(( $(wc -c <\"$c/touched\") + $(wc -c <\"$c/children\") )) "
        + "-le 16777216 ] || r=1; [ -z \"$r\" ] || { : >\"$c/touched\"; : >\"$c/children\"; }; fi; fi; "
        + "i=; [ ! -f \"$c/manifest.id\" ] || IFS= read -r i <\"$c/manifest.id\" || i=; "
        + "if [ -f \"$c/manifest\" ] && [ -d \"$c/tree\" ] && [ \"$i\" != dirty ] && [ -z \"$r\" ]; then "
        + "if [ \"$m\" != - ] && [ -n \"$i\" ] && [ \"$i\" = \"$m\" ]; then echo \"pipe-manifest same\"; "
        + "else echo \"pipe-manifest $(wc -c <\"$c/manifest\")\"; cat \"$c/manifest\" || exit 74; fi; "
        + "else echo \"pipe-manifest none\"; fi; "
        + "if [ \"$d\" = - ]; then echo \"pipe-touched $(wc -c <\"$c/touched\") $(wc -c <\"$c/children\")\"; "
        + "cat \"$c/touched\" \"$c/children\" || exit 74; fi; "
        + "IFS= read -r l || exit 0; "
        + "a=; case \"$l\" in \"pipe-sync full \"*) f=1 ;; \"pipe-sync delta \"*) f= ;; \"pipe-sync patch \"*) f= a=1 ;; "
        + "*) echo \"pipe: unexpected sync request\" >&2; exit 2 ;; esac; z=; case \"$l\" in *\" gzip \"*) z=gzip ;; "
        + "*\" zstd \"*) [ -n \"$y\" ] || { echo \"pipe: zstd was asked for, and this host has none\" >&2; exit 2; }; "
        + "z=$y ;; esac; "
        + "k=${l##* }; "
        + "case \"$k\" in '' | *[!0-9]*) echo \"pipe: unexpected sync request\" >&2; exit 2 ;; esac; "
        + "echo dirty >\"$c/manifest.id\" || exit 74; for s in \"$c/manifest.base\" \"$c\"/manifest.incoming.*; do "
        + "[ ! -e \"$s\" ] || { rm -f \"$c/manifest.base\" \"$c\"/manifest.incoming.* || exit 74; break; }; done; "
        + "if [ -n \"$f\" ]; then rm -rf \"$c/tree\" && mkdir \"$c/tree\" || exit 74; fi; "
        + "while [ \"$k\" -gt 0 ]; do IFS= read -r p || { echo \"pipe: the list of deletions ended early\" >&2; "
        + "exit 2; }; case \"/$p/\" in *\"/../\"* | *\"/./\"* | *\"//\"*) echo \"pipe: refusing to delete '$p'\" >&2; "
        + "exit 2 ;; esac; rm -rf \"$c/tree/$p\" || exit 74; k=$((k-1)); done; "
        + "if [ -n \"$z\" ]; then rm -f \"$c/unpack.failed\"; "
        + "{ \"$z\" -dc || : >\"$c/unpack.failed\"; } | tar -x -p -o -f - -C \"$c\" || exit \"$?\"; "
        + "[ ! -e \"$c/unpack.failed\" ] || { echo \"pipe: the compressed archive could not be unpacked\" >&2; exit 2; }; "
        + "else tar -x -p -o -f - -C \"$c\" || exit \"$?\"; fi; "
        + "[ -f \"$c/manifest.incoming.$t\" ] || { echo \"pipe: the archive carried no manifest\" >&2; exit 2; }; "
        + "if [ -n \"$a\" ]; then cat \"$c/manifest.incoming.$t\" >>\"$c/manifest\" "
        + "&& rm -f \"$c/manifest.incoming.$t\" || exit 74; "
        + "else mv \"$c/manifest.incoming.$t\" \"$c/manifest\" || exit 74; fi; "
        + "if [ \"$d\" = - ]; then echo \"$t\" >\"$c/synced\" || exit 74; fi; echo \"$t\" >\"$c/manifest.id\" || exit 74; "
        + "echo pipe-applied; "
        + "if [ \"$d\" = - ]; then rm -f \"$c/touched\" \"$c/children\"; echo pipe-cloned; exit 0; fi; "
        + "cp -c -R -p \"$c/tree\" \"$d\" || exit 74; echo pipe-cloned"
}

import PipeBasics

/// The POSIX `sh` scripts Pipe runs on a host, and the command lines that start them.
///
/// Each script is a constant, started as `exec /bin/sh -c '<script>' <name> <arguments…>`: values reach it only as
/// positional parameters quoted with `ShellQuote`, never pasted into script text, and the login shell (zsh on a Mac)
/// sees nothing but quoted words. The scripts use only what a stock macOS has — `sh`, `kill`, `ps`, `sleep`, `tar`
/// (flags common to bsdtar and GNU tar), `tee`, `shasum -a 256`, `wc`, `cat`, `mkdir` — and avoid what differs
/// between dash (Debian's `sh`) and bash 3.2 (macOS's `sh`): no `set -m` (dash turns job control off without a
/// terminal), no `kill --` (dash rejects it), `kill -SIG -PGID` instead.
enum RemoteScript {
    /// The command line that runs `script` with `arguments` as `$1…`.
    static func commandLine(script: String, name: String, arguments: [String]) -> String {
        ShellQuote.join(["exec", "/bin/sh", "-c", script, name] + arguments)
    }

    /// Runs `$1` as `/bin/sh -c "$1"` after printing `$2 <pgid>` to stderr. `$1`: command; `$2`: marker.
    ///
    /// OpenSSH's sshd starts every session's command with `setsid()`, so the login shell that runs this is the leader
    /// of a fresh process group whose id is its pid (`$$`); `exec` keeps that pid for the command. `kill -0 -$$`
    /// checks it (a group with that id exists only if this process leads it) before anything runs, so Pipe never
    /// records a group it could not stop — or one it must not kill.
    static let groupLeader =
        "kill -0 -$$ 2>/dev/null || { echo \"pipe: the host's sshd did not start this command as the leader of its "
        + "own process group, so Pipe could not stop it later; not running it\" >&2; exit 125; }; "
        + "echo \"$2 $$\" >&2; exec /bin/sh -c \"$1\""

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
    /// so `cat` drains the rest, or `tee` would die of SIGPIPE and `shasum` see a truncated stream.
    static let extractUpload =
        "mkdir -p -- \"$1\" || exit 1; exec 4>&1; "
        + "{ tee /dev/fd/3 | { echo \"pipe-sha256 $(shasum -a 256)\"; } >&4; } 3>&1 "
        + "| { tar -xf - -C \"$1\"; s=$?; cat >/dev/null; exit \"$s\"; }"

    /// Writes a tar stream of `$2` (inside folder `$1`) on stdout, and on stderr the lines `pipe-tar-status <n>`,
    /// `pipe-sha256 <hex>` and `pipe-bytes <n>` of that very stream (or `pipe-missing` when `$1/$2` does not exist).
    ///
    /// fd 3 is a pipe into `cat` rather than the channel itself: Linux cannot reopen a socket through `/dev/fd`.
    static let archiveDownload =
        "[ -e \"$1/$2\" ] || [ -L \"$1/$2\" ] || { echo pipe-missing >&2; exit 66; }; exec 5>&2; "
        + "{ { tar -cf - -C \"$1\" \"./$2\"; echo \"pipe-tar-status $?\" >&5; } | tee /dev/fd/3 "
        + "| { tee /dev/fd/4 | { echo \"pipe-sha256 $(shasum -a 256)\"; } >&5; } 4>&1 "
        + "| { echo \"pipe-bytes $(wc -c)\"; } >&5; } 3>&1 | cat"
}
